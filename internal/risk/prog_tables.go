package risk

// Programs whose class does not depend on their arguments. Anything not
// listed here or handled in the prog_*.go files is unknown.
var (
	safePrograms = []string{
		// files and text, read only
		"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack", "less", "more",
		"file", "stat", "du", "df", "tree", "uniq", "cut", "tr", "diff", "cmp", "comm", "basename",
		"dirname", "realpath", "readlink", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
		"sha512sum", "b2sum", "cksum", "sum", "jq", "yq", "column", "nl", "fold", "fmt", "paste", "join",
		"expand", "unexpand", "rev", "tac", "od", "hexdump", "strings", "zcat", "zgrep", "bzcat",
		"xzcat", "zless", "base64", "base32", "look", "colrm", "numfmt", "shuf", "cal", "bc", "dc",
		"expr", "seq", "factor", "pr", "ptx", "tsort", "lsattr", "namei", "getfacl", "wdiff", "diff3",
		"sdiff", "ldd", "nm", "objdump", "readelf", "size", "locate", "mlocate",
		// shell builtins and status
		"echo", "printf", "pwd", "true", "false", "test", "[", ":", "exit", "return", "break",
		"continue", "shift", "wait", "jobs", "read", "set", "unset", "shopt", "umask", "ulimit",
		"getopts", "help", "history", "times", "type", "dirs", "compgen", "complete", "caller", "let",
		"local", "readonly", "declare", "typeset", "mapfile", "readarray", "disown", "fg", "bg",
		"suspend", "logout",
		// system information
		"date", "whoami", "id", "groups", "uname", "printenv", "which", "whereis", "ps", "pgrep",
		"free", "uptime", "nproc", "lscpu", "lsblk", "lsusb", "lspci", "locale", "tty", "users", "w",
		"who", "last", "lsof", "getconf", "arch", "sleep", "yes", "clear", "tput", "man", "info",
		"whatis", "apropos", "top", "htop", "vmstat", "iostat", "mpstat", "pidof", "pstree",
		"hostid", "logname", "stty", "sensors", "dmesg",
	}
	networkPrograms = []string{
		"sftp", "ftp", "telnet", "nc", "ncat", "netcat", "socat", "ping", "ping6",
		"traceroute", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "http", "https", "xh",
		"aria2c", "gh", "hub", "nmap", "kubectl", "helm", "aws", "gcloud", "az", "doctl", "flyctl",
		"heroku", "vercel", "netlify", "lftp", "links", "lynx", "w3m", "websocat", "grpcurl",
	}
	systemPrograms = []string{
		"mount", "umount", "swapon", "swapoff", "useradd", "userdel",
		"usermod", "groupadd", "groupdel", "passwd", "chpasswd", "visudo", "iptables", "ip6tables",
		"nft", "ufw", "firewall-cmd", "modprobe", "insmod", "rmmod", "chattr", "setfacl", "ldconfig",
		"update-alternatives", "hostnamectl", "timedatectl", "localectl", "loginctl", "service",
		"launchctl", "pkill", "killall", "fsck", "e2fsck", "tune2fs", "resize2fs", "losetup",
		"cryptsetup", "lvm", "lvcreate", "lvremove", "vgcreate", "pvcreate", "mdadm", "snap",
		"flatpak", "apt", "apt-get", "aptitude", "yum", "dnf", "zypper", "emerge", "apk", "port",
		"nix-env", "setcap",
		"at", "batch",
	}
	destructivePrograms = []string{
		"mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "wipefs", "fdisk", "sfdisk", "cfdisk",
		"gdisk", "sgdisk", "parted", "blkdiscard", "shutdown", "reboot", "halt", "poweroff",
		"telinit", "init", "hdparm", "nvme", "zpool", "zfs", "diskutil",
	}
	codePrograms = []string{
		"make", "gmake", "cmake", "ninja", "meson", "scons", "bazel", "bazelisk", "buck", "buck2",
		"gradle", "gradlew", "mvn", "mvnw", "ant", "sbt", "lein", "mix", "rebar3", "dotnet", "tox",
		"nox", "pytest", "py.test", "jest", "mocha", "vitest", "tsc", "eslint", "prettier",
		"webpack", "vite", "rollup", "esbuild", "ts-node", "tsx", "deno", "bun", "rake", "just",
		"task", "expect", "tclsh", "wish", "vi", "vim", "nvim", "nano", "emacs", "ed", "ex",
		"parallel", "gdb", "lldb", "valgrind", "source", ".", "alias", "unalias", "hash", "enable",
		"ansible", "ansible-playbook", "terraform", "pulumi", "osascript", "R", "Rscript", "julia",
		"java", "jshell", "groovy", "scala", "kotlin", "swift", "elixir", "erl",
		"ghc", "runghc", "stack", "cabal", "ocaml", "dune", "nim", "crystal", "zig", "lua", "luajit",
		"pwsh", "powershell", "fish", "tmux", "screen", "nix", "nix-shell", "direnv", "pre-commit",
		"php", "perl", "ruby", "node", "nodejs", "python", "pypy", "pypy3", "irb", "coproc",
	}
)
