package claudecode

// readOnlyFlags are the commands whose options Claude Code 2.1.328 checks
// one by one before it runs them as read-only: each option the release
// accepts, with whether it takes a value (=s, =d: a string or a number, the
// next word unless written --opt=V) or not (=n). Any other option makes the
// command need approval. Read from the release's read-only command table;
// the extra checks the release makes per command (date setting the clock,
// git branch and tag creating refs, ps showing environments, ...) are in
// readonly.go, and test's table is testFlags there; xargs and help are read
// in readonly.go.
var readOnlyFlags = map[string]string{
	"docker inspect": "--format=s --size=n --type=s -f=s -s=n",
	"docker logs":    "--details=n --follow=n --since=s --tail=s --timestamps=n --until=s -f=n -n=s -t=n",
	"fd":             fdFlags,
	"fdfind":         fdFlags,
	"git ls-remote": "--branches=n --exit-code=n --get-url=n --heads=n --quiet=n --refs=n --sort=s --symref=n --tags=n " +
		"-b=n -h=n -q=n -t=n",
	"lsof": "-?=n -A=s -C=n -E=n -F=n -H=n -K=n -L=n -N=n -O=n -P=n -Q=n -R=n -S=n -T=n -U=n -V=n -X=n -a=n -b=n " +
		"-c=s -d=s -e=s -g=n -h=n -i=n -k=s -l=n -n=n -o=n -p=s -r=n -s=n -t=n -u=s -v=n -x=n",
	"ss": "--all=n --bpf=n --cgroup=n --context=n --contexts=n --dccp=n --events=n --extended=n --family=s " +
		"--help=n --inet-sockopt=n --info=n --ipv4=n --ipv6=n --listening=n --memory=n --mptcp=n " +
		"--no-header=n --numeric=n --oneline=n --options=n --packet=n --processes=n --query=s --raw=n " +
		"--sctp=n --socket=s --summary=n --tcp=n --tipc=n --tipcinfo=n --tos=n --udp=n --unix=n --version=n " +
		"--vsock=n -0=n -4=n -6=n -A=s -E=n -H=n -M=n -O=n -S=n -V=n -Z=n -a=n -b=n -d=n -e=n -f=s -h=n -i=n " +
		"-l=n -m=n -n=n -o=n -p=n -s=n -t=n -u=n -w=n -x=n -z=n",
	"tput": "-T=s -V=n -x=n",
	"base64": "--break=d --decode=n --help=n --ignore-garbage=n --input=s --version=n --wrap=d -D=n -b=d -d=n -h=n " +
		"-i=s -w=d",
	"date": "--date=s --debug=n --help=n --iso-8601=s --reference=s --rfc-3339=s --rfc-email=n --universal=n " +
		"--utc=n --version=n -I=n -R=n -d=s -r=s -u=n",
	"egrep": "--after-context=d --basic-regexp=n --before-context=d --binary=n --binary-files=s --byte-offset=n " +
		"--color=s --colour=s --context=d --count=n --dereference-recursive=n --devices=s --directories=s " +
		"--exclude=s --exclude-dir=s --exclude-from=s --extended-regexp=n --file=s --files-with-matches=n " +
		"--files-without-match=n --fixed-strings=n --group-separator=s --help=n --ignore-case=n --include=s " +
		"--initial-tab=n --invert-match=n --label=s --line-buffered=n --line-number=n --line-regexp=n " +
		"--max-count=d --no-filename=n --no-group-separator=n --no-ignore-case=n --no-messages=n --null=n " +
		"--null-data=n --only-matching=n --perl-regexp=n --quiet=n --recursive=n --regexp=s --silent=n " +
		"--text=n --unix-byte-offsets=n --version=n --with-filename=n --word-regexp=n -A=d -B=d -C=d -D=s " +
		"-E=n -F=n -G=n -H=n -I=n -L=n -P=n -R=n -T=n -U=n -V=n -Z=n -a=n -b=n -c=n -d=s -e=s -f=s -h=n -i=n " +
		"-l=n -m=d -n=n -o=n -q=n -r=n -s=n -u=n -v=n -w=n -x=n -z=n",
	"fgrep": "--after-context=d --basic-regexp=n --before-context=d --binary=n --binary-files=s --byte-offset=n " +
		"--color=s --colour=s --context=d --count=n --dereference-recursive=n --devices=s --directories=s " +
		"--exclude=s --exclude-dir=s --exclude-from=s --extended-regexp=n --file=s --files-with-matches=n " +
		"--files-without-match=n --fixed-strings=n --group-separator=s --help=n --ignore-case=n --include=s " +
		"--initial-tab=n --invert-match=n --label=s --line-buffered=n --line-number=n --line-regexp=n " +
		"--max-count=d --no-filename=n --no-group-separator=n --no-ignore-case=n --no-messages=n --null=n " +
		"--null-data=n --only-matching=n --perl-regexp=n --quiet=n --recursive=n --regexp=s --silent=n " +
		"--text=n --unix-byte-offsets=n --version=n --with-filename=n --word-regexp=n -A=d -B=d -C=d -D=s " +
		"-E=n -F=n -G=n -H=n -I=n -L=n -P=n -R=n -T=n -U=n -V=n -Z=n -a=n -b=n -c=n -d=s -e=s -f=s -h=n -i=n " +
		"-l=n -m=d -n=n -o=n -q=n -r=n -s=n -u=n -v=n -w=n -x=n -z=n",
	"file": "--apple=n --brief=n --check-encoding=n --dereference=n --exclude=s --exclude-quiet=s --help=n " +
		"--keep-going=n --list=n --mime=n --mime-encoding=n --mime-type=n --no-buffer=n --no-dereference=n " +
		"--preserve-date=n --print0=n --raw=n --separator=s --special-files=n --version=n -0=n -F=s -L=n -b=n " +
		"-c=n -h=n -i=n -k=n -l=n -n=n -p=n -r=n -s=n -v=n",
	"git blame": "--abbrev=d --color=n --date=s --ignore-rev=s --ignore-revs-file=s --incremental=n --line-porcelain=n " +
		"--no-color=n --porcelain=n --root=n --score-debug=n --show-email=n --show-name=n --show-number=n " +
		"--show-stats=n -C=n -L=s -M=n -e=n -f=n -l=n -n=n -p=n -s=n -t=n -w=n",
	"git branch": "--abbrev=d --all=n --color=n --column=n --contains=s --ignore-case=n --list=n --merged=n " +
		"--no-abbrev=n --no-color=n --no-column=n --no-contains=s --no-merged=n --points-at=s --remotes=n " +
		"--show-current=n --sort=s --verbose=n -a=n -i=n -l=n -r=n -v=n -vv=n",
	"git cat-file": "--allow-undetermined-type=n --batch-check=n -e=n -p=n -s=n -t=n",
	"git config --get": "--bool=n --bool-or-int=n --default=s --expiry-date=n --global=n --int=n --local=n --name-only=n " +
		"--null=n --path=n --show-origin=n --show-scope=n --system=n --type=s --worktree=n -z=n",
	"git describe": "--abbrev=d --always=n --broken=n --candidates=d --contains=n --dirty=n --exact-match=n --exclude=s " +
		"--first-match=n --long=n --match=s --tags=n",
	"git diff": "--abbrev=d --binary=n --break-rewrites=n --cached=n --check=n --color=n --color-words=n " +
		"--diff-algorithm=s --diff-filter=s --dirstat=n --exit-code=n --find-copies=n --find-copies-harder=n " +
		"--find-renames=n --full-index=n --function-context=n --histogram=n --ignore-all-space=n " +
		"--ignore-blank-lines=n --ignore-space-at-eol=n --ignore-space-change=n --inter-hunk-context=d " +
		"--irreversible-delete=n --minimal=n --name-only=n --name-status=n --no-color=n --no-ext-diff=n " +
		"--no-index=n --no-renames=n --numstat=n --patch-with-stat=n --patience=n --pickaxe-all=n " +
		"--pickaxe-regex=n --quiet=n --relative=s --shortstat=n --staged=n --stat=n --summary=n --word-diff=n " +
		"--word-diff-regex=s --ws-error-highlight=s -B=n -C=n -D=n -G=s -M=n -O=s -R=n -S=s -l=n -p=n -s=n " +
		"-u=n",
	"git for-each-ref": "--contains=s --count=d --format=s --merged=s --no-contains=s --no-merged=s --points-at=s --sort=s",
	"git grep": "--after-context=d --and=n --basic-regexp=n --before-context=d --break=n --cached=n --color=n " +
		"--context=d --count=n --extended-regexp=n --files-with-matches=n --files-without-match=n " +
		"--fixed-strings=n --full-name=n --heading=n --ignore-case=n --invert-match=n --line-number=n " +
		"--max-depth=d --no-color=n --no-index=n --not=n --only-matching=n --or=n --perl-regexp=n --quiet=n " +
		"--recurse-submodules=n --threads=d --untracked=n --word-regexp=n -A=d -B=d -C=d -E=n -F=n -G=n -H=n " +
		"-L=n -P=n -c=n -e=s -h=n -i=n -l=n -n=n -o=n -q=n -v=n -w=n",
	"git log": "--abbrev-commit=n --after=s --all=n --ancestry-path=n --author=s --author-date-order=n --before=s " +
		"--boundary=n --branches=n --cherry-mark=n --cherry-pick=n --color=n --committer=s --date=s " +
		"--date-order=n --decorate=n --dense=n --diff-filter=s --first-parent=n --follow=n --format=s " +
		"--full-history=n --graph=n --grep=s --left-right=n --max-age=d --max-count=d --merges=n --min-age=d " +
		"--name-only=n --name-status=n --no-color=n --no-decorate=n --no-ext-diff=n --no-max-parents=n " +
		"--no-merges=n --no-min-parents=n --no-patch=n --no-walk=n --numstat=n --oneline=n --patch=n " +
		"--pickaxe-all=n --pickaxe-regex=n --pretty=s --relative-date=n --remotes=n --reverse=n --shortstat=n " +
		"--simplify-merges=n --since=s --skip=d --source=n --sparse=n --stat=n --tags=n --topo-order=n " +
		"--until=s --walk-reflogs=n -G=s -S=s -n=d -p=n -s=n",
	"git ls-files": "--abbrev=d --cached=n --debug=n --deleted=n --directory=n --eol=n --error-unmatch=n --exclude=s " +
		"--exclude-from=s --exclude-per-directory=s --exclude-standard=n --full-name=n --ignored=n --killed=n " +
		"--modified=n --no-empty-directory=n --others=n --recurse-submodules=n --stage=n --unmerged=n -X=s " +
		"-c=n -d=n -f=n -i=n -k=n -m=n -o=n -s=n -t=n -u=n -v=n -x=s -z=n",
	"git merge-base": "--all=n --fork-point=n --independent=n --is-ancestor=n --octopus=n",
	"git reflog": "--after=s --all=n --author=s --before=s --branches=n --committer=s --date=s --decorate=n --graph=n " +
		"--grep=s --max-count=d --no-decorate=n --oneline=n --relative-date=n --remotes=n --since=s --tags=n " +
		"--until=s -n=d",
	"git remote":      "--verbose=n -v=n",
	"git remote show": "-n=n",
	"git rev-list": "--abbrev=d --abbrev-commit=n --after=s --all=n --ancestry-path=n --author=s --before=s --branches=n " +
		"--committer=s --count=n --dense=n --first-parent=n --format=s --full-history=n --graph=n --grep=s " +
		"--max-age=d --max-count=d --max-parents=d --merges=n --min-age=d --min-parents=d --no-max-parents=n " +
		"--no-merges=n --no-min-parents=n --oneline=n --pretty=s --remotes=n --reverse=n --since=s --skip=d " +
		"--source=n --sparse=n --tags=n --until=s --walk-reflogs=n -n=d",
	"git rev-parse": "--abbrev-ref=n --absolute-git-dir=n --git-common-dir=n --git-dir=n --is-bare-repository=n " +
		"--is-inside-git-dir=n --is-inside-work-tree=n --is-shallow-repository=n --is-shallow-update=n " +
		"--path-prefix=n --short=s --show-cdup=n --show-prefix=n --show-toplevel=n --symbolic=n " +
		"--symbolic-full-name=n --verify=n",
	"git shortlog": "--after=s --all=n --author=s --before=s --branches=n --committer=n --email=n --format=s --group=s " +
		"--no-merges=n --numbered=n --remotes=n --since=s --summary=n --tags=n --until=s -c=n -e=n -n=n -s=n",
	"git show": "--abbrev-commit=n --color=n --color-words=n --date=s --decorate=n --diff-filter=s --first-parent=n " +
		"--format=s --graph=n --name-only=n --name-status=n --no-color=n --no-decorate=n --no-ext-diff=n " +
		"--no-patch=n --numstat=n --oneline=n --patch=n --pretty=s --quiet=n --raw=n --relative-date=n " +
		"--shortstat=n --stat=n --word-diff=n --word-diff-regex=s -m=n -p=n -s=n",
	"git stash list": "--all=n --branches=n --date=s --decorate=n --graph=n --max-count=d --no-decorate=n --oneline=n " +
		"--relative-date=n --remotes=n --tags=n -n=d",
	"git stash show": "--abbrev=d --color=n --diff-filter=s --name-only=n --name-status=n --no-color=n --no-ext-diff=n " +
		"--no-patch=n --numstat=n --patch=n --shortstat=n --stat=n --word-diff=n --word-diff-regex=s -p=n " +
		"-s=n",
	"git status": "--ahead-behind=n --branch=n --column=n --find-renames=s --ignore-submodules=s --ignored=n --long=n " +
		"--no-ahead-behind=n --no-column=n --no-renames=n --porcelain=n --renames=n --short=n " +
		"--untracked-files=s --verbose=n -M=s -b=n -s=n -u=s -v=n",
	"git tag": "--column=n --contains=s --format=s --ignore-case=n --list=n --merged=s --no-column=n --no-contains=s " +
		"--no-merged=s --points-at=s --sort=s -i=n -l=n -n=d",
	"git worktree list": "--expire=s --porcelain=n --verbose=n -v=n",
	"grep": "--after-context=d --basic-regexp=n --before-context=d --binary=n --binary-files=s --byte-offset=n " +
		"--color=s --colour=s --context=d --count=n --dereference-recursive=n --devices=s --directories=s " +
		"--exclude=s --exclude-dir=s --exclude-from=s --extended-regexp=n --file=s --files-with-matches=n " +
		"--files-without-match=n --fixed-strings=n --group-separator=s --help=n --ignore-case=n --include=s " +
		"--initial-tab=n --invert-match=n --label=s --line-buffered=n --line-number=n --line-regexp=n " +
		"--max-count=d --no-filename=n --no-group-separator=n --no-ignore-case=n --no-messages=n --null=n " +
		"--null-data=n --only-matching=n --perl-regexp=n --quiet=n --recursive=n --regexp=s --silent=n " +
		"--text=n --unix-byte-offsets=n --version=n --with-filename=n --word-regexp=n -A=d -B=d -C=d -D=s " +
		"-E=n -F=n -G=n -H=n -I=n -L=n -P=n -R=n -T=n -U=n -V=n -Z=n -a=n -b=n -c=n -d=s -e=s -f=s -h=n -i=n " +
		"-l=n -m=d -n=n -o=n -q=n -r=n -s=n -u=n -v=n -w=n -x=n -z=n",
	"hostname": "--alias=n --all-fqdns=n --all-ip-addresses=n --domain=n --fqdn=n --help=n --ip-address=n --long=n " +
		"--short=n --verbose=n --version=n -A=n -I=n -V=n -a=n -d=n -f=n -h=n -i=n -s=n -v=n",
	"man": "--all=n --apropos=n --whatis=n -S=s -a=n -d=n -f=n -h=n -k=n -s=s -w=n",
	"md5sum": "--binary=n --check=n --help=n --ignore-missing=n --quiet=n --status=n --strict=n --tag=n --text=n " +
		"--version=n --warn=n --zero=n -b=n -c=n -t=n -w=n -z=n",
	"netstat": "-I=s -L=n -a=n -f=s -g=n -i=n -l=n -m=n -n=n -r=n -s=n -v=n",
	"pgrep": "--count=n --delimiter=s --euid=s --exact=n --full=n --group=s --help=n --ignore-case=n --inverse=n " +
		"--lightweight=n --list-full=n --list-name=n --logpidfile=n --newest=n --ns=s --nslist=s --older=s " +
		"--oldest=n --parent=s --pgroup=s --pidfile=s --runstates=s --session=s --terminal=s --uid=s " +
		"--version=n -F=s -G=s -L=n -O=s -P=s -U=s -V=n -a=n -c=n -d=s -f=n -g=s -i=n -l=n -n=n -o=n -r=s " +
		"-s=s -t=s -u=s -v=n -w=n -x=n",
	"ps": "--deselect=n --forest=n --headers=n --help=n --info=n --no-headers=n --pid=s --quick-pid=s --sid=s " +
		"--sort=s --tty=s --user=s --version=n --width=d -A=n -C=s -F=n -G=s -H=n -L=n -N=n -T=n -U=s -V=n " +
		"-a=n -c=n -d=n -e=n -f=n -g=s -j=n -l=n -m=n -n=s -p=s -q=s -s=s -t=s -u=s -w=n -ww=n -y=n",
	"rg": "--=n --after-context=d --before-context=d --color=s --column=n --context=d --count=n --debug=n " +
		"--files-with-matches=n --files-without-match=n --fixed-strings=n --follow=n --glob=s --heading=n " +
		"--help=n --hidden=n --ignore-case=n --invert-match=n --json=n --line-number=n --max-count=d " +
		"--max-depth=d --no-heading=n --no-ignore=n --only-matching=n --quiet=n --regexp=s --smart-case=n " +
		"--stats=n --text=n --type=s --type-list=n --type-not=s --version=n --word-regexp=n -A=d -B=d -C=d " +
		"-F=n -H=n -L=n -S=n -T=s -a=n -c=n -d=d -e=s -f=s -g=s -h=n -i=n -l=n -m=d -n=n -o=n -q=n -t=s -u=n " +
		"-v=n -w=n",
	"sha1sum": "--binary=n --check=n --help=n --ignore-missing=n --quiet=n --status=n --strict=n --tag=n --text=n " +
		"--version=n --warn=n --zero=n -b=n -c=n -t=n -w=n -z=n",
	"sha256sum": "--binary=n --check=n --help=n --ignore-missing=n --quiet=n --status=n --strict=n --tag=n --text=n " +
		"--version=n --warn=n --zero=n -b=n -c=n -t=n -w=n -z=n",
	"sort": "--batch-size=d --buffer-size=s --check=n --check-char-order=n --dictionary-order=n " +
		"--field-separator=s --general-numeric-sort=n --help=n --human-numeric-sort=n --ignore-case=n " +
		"--ignore-leading-blanks=n --ignore-nonprinting=n --key=s --merge=n --month-sort=n --numeric-sort=n " +
		"--parallel=d --random-sort=n --reverse=n --sort=s --stable=n --unique=n --version=n --version-sort=n " +
		"--zero-terminated=n -C=n -M=n -R=n -S=s -V=n -b=n -c=n -d=n -f=n -g=n -h=n -i=n -k=s -m=n -n=n -r=n " +
		"-s=n -t=s -u=n -z=n",
	"tree": "--authority=s --charset=s --device=n --dirsfirst=n --du=n --fflinks=n --filelimit=d --filesfirst=n " +
		"--fromfile=n --fromtabfile=n --gitfile=s --gitignore=n --help=n --hintro=s --houtro=s --hyperlink=n " +
		"--ignore-case=n --info=n --infofile=s --inodes=n --matchdirs=n --metafirst=n --nolinks=n " +
		"--noreport=n --prune=n --scheme=s --si=n --sort=s --timefmt=s --version=n -A=n -C=n -D=n -F=n -H=s " +
		"-I=s -J=n -L=d -N=n -P=s -Q=n -S=n -T=s -U=n -X=n -a=n -c=n -d=n -f=n -g=n -h=n -i=n -l=n -n=n -p=n " +
		"-q=n -r=n -s=n -t=n -u=n -v=n -x=n",
	"which": "--all=n --help=n --show-dot=n --show-tilde=n --skip-alias=n --skip-dot=n --skip-functions=n " +
		"--skip-tilde=n --version=n -V=n -a=n -p=n -s=n -v=n -w=n",
}

// fdFlags are the options of fd, which Debian names fdfind.
const fdFlags = "--absolute-path=n --and=s --base-directory=s --batch-size=d --case-sensitive=n --changed-before=s " +
	"--changed-within=s --color=s --exact-depth=d --exclude=s --extension=s --fixed-strings=n --follow=n " +
	"--format=s --full-path=n --glob=n --help=n --hidden=n --hyperlink=s --ignore-case=n --ignore-file=s " +
	"--max-buffer-time=s --max-depth=d --max-results=d --min-depth=d --no-ignore-parent=n " +
	"--no-ignore-vcs=n --no-ignore=n --no-require-git=n --one-file-system=n --owner=s --path-separator=s " +
	"--print0=n --prune=n --quiet=n --regex=n --search-path=s --show-errors=n --size=s " +
	"--strip-cwd-prefix=n --threads=d --type=s --version=n -0=n -1=n -E=s -F=n -H=n -I=n -L=n -S=s -V=n " +
	"-a=n -c=s -d=d -e=s -g=n -h=n -i=n -j=d -o=s -p=n -q=n -s=n -t=s"
