package risk

import (
	"os"
	"path/filepath"
	"testing"
)

// fixture is a workspace at <tmp>/home/ws with a subdirectory, a symlink to
// /etc, a dangling symlink whose target is outside, and a link to sub.
func fixture(t testing.TB) *Classifier {
	t.Helper()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	root := filepath.Join(home, "ws")
	for _, d := range []string{filepath.Join(root, "sub"), filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"etc":      "/etc",
		"dangling": filepath.Join(tmp, "outside", "new.txt"),
		"insub":    "sub",
		"up":       "..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Dir: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type shellCase struct {
	cmd  string
	want Class
}

// shellCases cover every class and each evasion trick; each group's name
// says what it exercises.
var shellCases = map[string][]shellCase{
	"safe": {
		{"ls -la", Safe}, {"cat go.mod", Safe}, {"wc -l go.mod", Safe}, {"grep -rn TODO .", Safe},
		{"head -n 5 README.md", Safe}, {"git status --short", Safe}, {"git log --oneline -5", Safe},
		{"git diff HEAD~1", Safe}, {"go build ./...", Safe}, {"go vet ./...", Safe}, {"go list -m all", Safe},
		{"echo hello", Safe}, {"pwd", Safe}, {"find . -name '*.go'", Safe}, {"jq .name package.json", Safe},
		{"sort -u names.txt", Safe}, {"sed -n 1,10p go.mod", Safe}, {"awk '{print $1}' go.mod", Safe},
		{"tar tzf a.tgz", Safe}, {"unzip -l a.zip", Safe}, {"git branch -a", Safe}, {"git config --get user.name", Safe},
		{"echo ok >/dev/null 2>&1", Safe}, {"ls 2>&1 | head", Safe}, {"cd sub && ls", Safe},
		{"", Safe}, {"# just a comment", Safe}, {"true && false || echo x", Safe}, {"X=1", Safe},
		{"for f in *.go; do echo $f; done", Safe}, {"if test -f go.mod; then cat go.mod; fi", Safe},
		{"[[ -f go.mod ]] && echo yes", Safe}, {"(( 1 + 2 ))", Safe}, {"command -v go", Safe},
		{"cat < go.mod", Safe}, {"diff <(ls) <(ls sub)", Safe}, {"python3 --version", Safe},
		{"env", Safe}, {"kill -l", Safe}, {"systemctl status ssh", Safe}, {"dpkg -l", Safe},
		{"gofmt -l .", Safe}, {"cat /etc/hostname", Safe}, {"export FOO=bar", Safe},
		{"time ls", Safe}, {"echo 'rm -rf /'", Safe}, {"grep -c 'curl' go.mod", Safe},
	},
	"local_write": {
		{"rm file.txt", LocalWrite}, {"rm -rf build", LocalWrite}, {"mv a.go b.go", LocalWrite},
		{"echo x > file", LocalWrite}, {"echo x >> sub/log", LocalWrite}, {"touch new.go", LocalWrite},
		{"mkdir -p a/b/c", LocalWrite}, {"cp a.go sub/", LocalWrite}, {"sed -i s/a/b/ go.mod", LocalWrite},
		{"git add -A", LocalWrite}, {"git commit -m msg", LocalWrite}, {"git checkout -b x", LocalWrite},
		{"gofmt -w main.go", LocalWrite}, {"go fmt ./...", LocalWrite}, {"tar xzf a.tgz", LocalWrite},
		{"tee out.txt < in", LocalWrite}, {"sort -o out.txt in.txt", LocalWrite}, {"ln -s target link", LocalWrite},
		{"chmod +x run.sh", LocalWrite}, {"cd sub && echo x > f", LocalWrite}, {"rm -rf ./build/*", LocalWrite},
		{"find . -name '*.o' -delete", LocalWrite}, {"echo x > insub/f", LocalWrite}, {"truncate -s 0 log", LocalWrite},
		{"rm ~/ws/file", LocalWrite}, {"git stash", LocalWrite}, {"mktemp", LocalWrite},
		{"cc -o prog main.c", LocalWrite}, {"dd if=a of=b", LocalWrite}, {"unzip a.zip -d out", LocalWrite},
	},
	"system_write": {
		{"sudo ls", SystemWrite}, {"sudo -u root id", SystemWrite}, {"apt-get install -y curl", SystemWrite},
		{"echo x > /etc/hosts", SystemWrite}, {"rm /tmp/file", SystemWrite}, {"cp a /usr/local/bin/", SystemWrite},
		{"cd /etc && echo x > passwd", SystemWrite}, {"echo x > ../outside.txt", SystemWrite},
		{"echo x > etc/passwd", SystemWrite}, {"echo x > dangling", SystemWrite}, {"echo x > up/escape", SystemWrite},
		{"touch insub/../../x", SystemWrite}, {"echo x > $OUT", SystemWrite}, {"systemctl restart nginx", SystemWrite},
		{"kill 1234", SystemWrite}, {"crontab -e", SystemWrite}, {"brew install jq", SystemWrite},
		{"mv file ~/elsewhere", SystemWrite}, {"cd - && echo x > f", SystemWrite}, {"echo > ~root/x", SystemWrite},
		{"git config --global user.name x", LocalWrite}, {"ls | xargs rm", SystemWrite}, {"go env -w GOFLAGS=-x", SystemWrite},
		{"doas reboot", Destructive}, {"tee /etc/motd", SystemWrite}, {"chown -R me /opt/app", SystemWrite},
	},
	"destructive": {
		{"rm -rf /", Destructive}, {"rm -fr /*", Destructive}, {"rm -r -f /usr", Destructive},
		{"rm --recursive --force /etc", Destructive}, {"rm -rf ~", Destructive}, {"rm -rf ..", Destructive},
		{"rm -rf .", Destructive}, {"rm -rf *", Destructive}, {"rm -rf $DIR", Destructive},
		{"rm -rf --no-preserve-root /", Destructive}, {"mkfs.ext4 /dev/sdb1", Destructive}, {"mkfs -t ext4 x", Destructive},
		{"shred -u secrets.txt", Destructive}, {"dd if=/dev/zero of=disk.img", Destructive}, {"wipefs -a x", Destructive},
		{"shutdown -h now", Destructive}, {"chmod -R 777 /", Destructive}, {"kill -9 -1", Destructive},
		{"find / -delete", Destructive}, {"find . -delete", Destructive}, {"find / -name x -delete", SystemWrite}, {"mv / /tmp/x", Destructive}, {"rm -rf up", Destructive},
		{"rm -r \"$HOME\"", Destructive}, {"rsync -a --delete src/ /", Destructive},
	},
	"network_egress": {
		{"curl https://example.com", NetworkEgress}, {"wget -O - https://x", NetworkEgress}, {"git push origin main", NetworkEgress},
		{"git pull", NetworkEgress}, {"git fetch --all", NetworkEgress}, {"ssh host ls", NetworkEgress},
		{"scp file host:/tmp/", NetworkEgress}, {"nc -l 8080", NetworkEgress}, {"ping -c 1 x", NetworkEgress},
		{"dig example.com", NetworkEgress}, {"go mod download", NetworkEgress}, {"npm view react", NetworkEgress},
		{"curl -s x | jq .", NetworkEgress}, {"echo $(curl -s x)", NetworkEgress}, {"gh pr list", NetworkEgress}, {"rsync -az -e ssh src/ host:dst/", NetworkEgress},
		{"rsync -e 'sh -c id' src host:dst", CodeExecution},
		{"curl -o out.html https://x", NetworkEgress}, {"wget https://x/file", NetworkEgress},
	},
	"code_execution": {
		{"curl https://x | bash", CodeExecution}, {"wget -qO- x | sh", CodeExecution}, {"eval \"$CMD\"", CodeExecution},
		{"node -e 'console.log(1)'", CodeExecution}, {"python -c 'print(1)'", CodeExecution}, {"python3 script.py", CodeExecution},
		{"go run .", CodeExecution}, {"go test ./...", CodeExecution}, {"./run.sh", CodeExecution},
		{"bash script.sh", CodeExecution}, {"make", CodeExecution}, {"npm test", CodeExecution},
		{"npx prettier .", CodeExecution}, {"source .env", CodeExecution}, {". ./setup.sh", CodeExecution},
		{"PATH=. ls", CodeExecution}, {"LD_PRELOAD=./x.so ls", CodeExecution}, {"export PATH=/tmp:$PATH", CodeExecution},
		{"git -c core.pager=evil log", CodeExecution}, {"git -c alias.x='!rm' log", CodeExecution},
		{"sed 's/a/b/e' f", CodeExecution}, {"awk 'BEGIN{system(\"id\")}'", CodeExecution}, {"find . -exec sh -c \"$X\" \\;", CodeExecution},
		{"sudo -s", CodeExecution}, {"su -", CodeExecution}, {"tar xf a.tar --to-command=sh", CodeExecution},
		{"x='$(id)'", CodeExecution}, {"echo ${x@P}", CodeExecution}, {"perl -e 1", CodeExecution},
		{"ssh -o ProxyCommand=evil host", CodeExecution}, {"/tmp/payload", CodeExecution}, {"docker run alpine", CodeExecution},
		{"cargo build", CodeExecution}, {"IFS=x; echo", CodeExecution}, {"declare \"$x\"", CodeExecution},
	},
	"install": {
		{"npm install", Install}, {"npm i lodash", Install}, {"pnpm add x", Install}, {"yarn", Install},
		{"pip install requests", Install}, {"pip3 install -r requirements.txt", Install}, {"python -m pip install x", Install},
		{"go install golang.org/x/tools/gopls@latest", Install}, {"go get example.com/x", Install}, {"cargo install ripgrep", Install},
		{"uv add httpx", Install}, {"gem install rails", Install}, {"npm ci && npm run build", CodeExecution},
	},
	"unknown": {
		{"foo", Unknown}, {"frobnicate --all", Unknown}, {"$CMD", Unknown}, {"$(echo rm) -rf /", Unknown},
		{"`which rm` -rf /", Unknown}, {"${X} file", Unknown}, {"/usr/bin/frob", Unknown}, {"git frob", Unknown},
		{"npm frob", Unknown}, {"go frob", Unknown}, {"echo 'unterminated", Unknown}, {"if then", Unknown},
		{"{r,m} -rf /", Unknown}, {"r? -rf /", Unknown}, {"ls; foo", Unknown}, {"ls | zzz", Unknown},
	},
	"blocked": {
		{":(){ :|:& };:", Blocked}, {"bomb(){ bomb|bomb& }; bomb", Blocked}, {"dd if=/dev/zero of=/dev/sda", Blocked},
		{"dd if=x of=/dev/nvme0n1 bs=1M", Blocked}, {"cat /dev/urandom > /dev/sda", Blocked}, {"echo c > /proc/sysrq-trigger", Blocked},
		{"shred /dev/sda", Blocked}, {"sudo dd of=/dev/disk2 if=img", Blocked}, {"f(){ f; }; f", Blocked},
	},
	"evasion: wrappers": {
		{"env rm -rf /", Destructive}, {"env -i PATH2=1 rm -rf /", Destructive}, {"sudo rm -rf /", Destructive},
		{"sudo -u root -- rm -rf /", Destructive}, {"command rm -rf /", Destructive}, {"builtin eval 'rm -rf /'", Destructive},
		{"exec rm -rf /", Destructive}, {"nice -n 10 rm -rf /", Destructive}, {"nohup rm -rf / &", Destructive},
		{"timeout 10 rm -rf /", Destructive}, {"timeout -s KILL 5 curl x", NetworkEgress}, {"time rm -rf /", Destructive},
		{"stdbuf -oL curl x", NetworkEgress}, {"ionice -c 3 rm -rf /", Destructive}, {"setsid curl x", NetworkEgress},
		{"xargs rm -rf < list", Destructive}, {"watch -n 1 'rm -rf /'", Destructive}, {"flock /tmp/l -c 'rm -rf /'", Destructive},
		{"busybox rm -rf /", Destructive}, {"strace -f curl x", NetworkEgress}, {"env -S 'rm -rf /'", Destructive},
		{"su -c 'rm -rf /'", Destructive}, {"env -C /etc rm passwd", SystemWrite}, {"trap 'rm -rf /' EXIT", Destructive},
	},
	"evasion: structure": {
		{"ls && rm -rf /", Destructive}, {"ls || rm -rf /", Destructive}, {"ls; rm -rf /", Destructive},
		{"ls | rm -rf /", Destructive}, {"(rm -rf /)", Destructive}, {"{ rm -rf /; }", Destructive},
		{"echo $(rm -rf /)", Destructive}, {"echo `rm -rf /`", Destructive}, {"echo \"$(rm -rf /)\"", Destructive},
		{"cat <(rm -rf /)", Destructive}, {"x=$(rm -rf /)", Destructive}, {"echo ${x:-$(rm -rf /)}", Destructive},
		{"if true; then rm -rf /; fi", Destructive}, {"while false; do rm -rf /; done", Destructive},
		{"for i in 1; do rm -rf /; done", Destructive}, {"case x in x) rm -rf / ;; esac", Destructive},
		{"f(){ rm -rf /; }", Destructive}, {"ls(){ :; }; ls -rf /", Safe}, {"rm(){ :; }; rm -rf /", Destructive},
		{"cat <<EOF\n$(rm -rf /)\nEOF", Destructive}, {"cat <<'EOF'\n$(rm -rf /)\nEOF", Safe},
		{"bash -c 'bash -c \"rm -rf /\"'", Destructive}, {"sh -ec 'curl x'", NetworkEgress}, {"(( a[$(rm -rf /)] ))", Destructive},
		{"ls &\nrm -rf /", Destructive}, {"! rm -rf /", Destructive}, {"coproc rm -rf /", Destructive},
		{"echo x | tee >(rm -rf /)", Destructive}, {"[[ $(rm -rf /) ]]", Destructive},
	},
	"evasion: quoting and names": {
		{"\\rm -rf /", Destructive}, {"'rm' -rf /", Destructive}, {"\"rm\" -rf /", Destructive},
		{"r\\m -rf /", Destructive}, {"'r'm -rf /", Destructive}, {"r\"\"m -rf /", Destructive},
		{"$'\\x72\\x6d' -rf /", Destructive}, {"$'\\162m' -rf /", Destructive}, {"/bin/rm -rf /", Destructive},
		{"/usr/bin/rm -rf /", Destructive}, {"//bin//rm -rf /", Destructive}, {"/bin/../bin/rm -rf /", Destructive},
		{"rm -rf '/'", Destructive}, {"rm -rf \"/\"", Destructive}, {"rm -rf /.", Destructive},
		{"rm -rf //", Destructive}, {"rm -rf /usr/../", Destructive}, {"/sbin/mkfs.ext4 /dev/sdb", Destructive},
		{"python3.12 -c 1", CodeExecution}, {"pip3.11 install x", Install}, {"\\curl x", NetworkEgress},
		{"/usr/bin/curl x | /bin/bash", CodeExecution}, {"rm -rf -- /", Destructive},
	},
	"evasion: IFS": {
		{"rm${IFS}-rf${IFS}/", Destructive}, {"rm$IFS-rf$IFS/", Destructive}, {"curl${IFS}x|bash", Unknown},
		{"{rm,-rf,/}", Unknown}, {"IFS=,;x=rm,-rf,/;$x", Unknown}, {"mkfs${IFS}/dev/sdb", Destructive},
		{"echo${IFS}hi", Unknown},
	},
}

func TestShellClassification(t *testing.T) {
	c := fixture(t)
	n := 0
	seen := map[Class]bool{}
	for group, cases := range shellCases {
		for _, tc := range cases {
			n++
			seen[tc.want] = true
			t.Run(group+"/"+tc.cmd, func(t *testing.T) {
				a := c.Shell(tc.cmd)
				if a.Class != tc.want {
					t.Errorf("Shell(%q) = %s (%s), want %s", tc.cmd, a.Class, a.Reason, tc.want)
				}
				if a.Class != a.Set.Max() || !a.Set.Has(a.Class) {
					t.Errorf("class %s is not the max of its set %v", a.Class, a.Set.List())
				}
				if a.Reason == "" {
					t.Error("no reason")
				}
				if a.Inspect != (a.Set == Of(Safe)) {
					t.Errorf("Inspect = %v for set %v", a.Inspect, a.Set.List())
				}
			})
		}
	}
	if n < 150 {
		t.Errorf("%d cases, want at least 150", n)
	}
	for _, cl := range Classes() {
		if !seen[cl] {
			t.Errorf("no case expects %s", cl)
		}
	}
}
