package claudecodetest

// matrixReadOnlyFlags: the read-only list's option checks (2.1.328's safe
// flags): attached values, values that look like options, string values
// starting with '-', git's -N, grep's -A5, and words past "--".
func matrixReadOnlyFlags() []dcase {
	probes := shs("sort -k1 a.txt", "sort -k 1 a.txt", "sort -k1,1 a.txt", "sort -k -r a.txt", "sort -t, a.txt", "sort -t , a.txt",
		"sort --key=1 a.txt", "sort --key=-1 a.txt", "sort --key -1 a.txt", "sort -k=1 a.txt", "sort -rn a.txt", "sort -rk1 a.txt",
		"sort -S1M a.txt", "sort --parallel=2 a.txt", "sort --parallel=x a.txt", "sort --parallel 2 a.txt", "sort -- -r",
		"git log -5", "git log -n5", "git log -n 5", "git log --max-count=5", "git log --max-count 5", "git log -n -5",
		"git log --author=-x", "git log --author -x", "git for-each-ref --sort=-committerdate", "git for-each-ref --sort=committerdate",
		"git for-each-ref --sort -committerdate", "git grep -A5 x", "git grep -A 5 x", "git branch --sort=-committerdate",
		"grep -A5 x a.txt", "grep -A 5 x a.txt", "grep -A5x x a.txt", "grep -C2 x a.txt", "grep -m1 x a.txt", "grep -e-x a.txt",
		"grep -e -x a.txt", "grep -ex a.txt", "rg -C2 x", "rg -A 2 x", "egrep -B1 x a.txt", "grep -in x a.txt", "grep -iA2 x a.txt",
		"base64 -w0 a.txt", "base64 -w 0 a.txt", "base64 -- -d", "git blame -- a.txt", "git blame -L1,2 a.txt", "git blame -L 1,2 a.txt",
		"tree -L2", "tree -L 2", "tree -L x", "sort -@ a.txt", "sort - a.txt", "wc -l -- -x")
	return sh4Cases("flags-readonly", "read-only options", []string{"default"}, Settings{}, nil, probes)
}
