package ledgerpolicy

import (
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

// TestDenySeesThroughWrappers: a deny rule over a command matches it
// behind leading assignments, a path, the wrappers that run another
// command, a shell's -c script and eval; the allow rules still read the
// call as written, so a wrapped command is not allowed by a pattern that
// names the command alone.
func TestDenySeesThroughWrappers(t *testing.T) {
	cat := catalogueOf(t, "codex@0.169.0")
	w := newWorld(t, `{"runtime":"codex@0.169.0","default":"allow","permissions":{"deny":["Bash(git push *)","Bash(rm *)"]}}`, cat)
	for _, cmd := range []string{
		`FOO=1 git push origin`,
		`FOO=1 BAR="a b" git push`,
		`env git push`,
		`env -i FOO=1 git push origin`,
		`env -u HOME -- git push`,
		`env -S "git push origin"`,
		`/usr/bin/git push`,
		`timeout 5 git push`,
		`timeout -s KILL -k 2 5 git push`,
		`timeout --signal=KILL 5s git push`,
		`nice -n 10 git push`,
		`nice -10 git push`,
		`nohup git push`,
		`time -p git push`,
		`stdbuf -oL git push`,
		`ionice -c3 git push`,
		`setsid -f git push`,
		`sudo -u root git push`,
		`sudo -E FOO=1 git push`,
		`doas -u root git push`,
		`command git push`,
		`builtin git push`,
		`exec -a x git push`,
		`nohup nice timeout 5 env FOO=1 /usr/bin/git push`,
		`ls | xargs rm`,
		`find . | xargs -0 -I {} rm {}`,
		`bash -c 'git push'`,
		`sh -c "git push origin main"`,
		`/bin/bash -lc 'cd x && git push'`,
		`bash -o pipefail -c 'git push'`,
		`sh -c "git push $REMOTE"`,
		`bash -c "sh -c 'env git push'"`,
		`eval git push`,
		`eval 'git push origin'`,
		`echo $(timeout 5 git push)`,
		`busybox rm -f x`,
	} {
		verdictIs(t, cmd, w.decide("root", "Bash", cmd), envelope.Deny, codePermissionDeny)
	}
	for _, cmd := range []string{`git status`, `env FOO=1 git status`, `bash -c 'git status'`, `timeout 5 go test ./...`, `echo git push`, `sh script.sh`, `xargs echo`} {
		verdictIs(t, cmd, w.decide("root", "Bash", cmd), envelope.Allow, codeDefaultAllow)
	}
	allow := newWorld(t, `{"runtime":"codex@0.169.0","default":"deny","permissions":{"allow":["Bash(git push *)"]}}`, cat)
	for _, cmd := range []string{`FOO=1 git push`, `env git push`, `bash -c 'git push'`} {
		if v := allow.decide("root", "Bash", cmd); v.Decision == envelope.Allow {
			t.Errorf("%s: allowed by Bash(git push *), which names the command alone", cmd)
		}
	}
}
