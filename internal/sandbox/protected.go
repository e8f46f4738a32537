package sandbox

import (
	"path/filepath"
	"slices"
)

// homeSecrets are the entries under $HOME that hold credentials or history
// no command odek runs has a reason to read.
var homeSecrets = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".docker", ".kube", ".config/gcloud",
	".azure", ".git-credentials", ".config/gh", ".config/hub", ".npmrc", ".yarnrc",
	".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".password-store", ".local/share/keyrings", ".vault-token", ".terraform.d/credentials.tfrc.json",
	".config/op", ".config/odek", ".mozilla", ".config/google-chrome", ".config/chromium",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".lesshst", ".viminfo",
}

// systemSecrets are system files a root-run odek would otherwise expose,
// and /dev: the operator's other terminals (/dev/pts/N, a keylogger's
// source), and for root every block device, which holds every protected
// file. The devices a command needs are granted by name (devices,
// readDevices).
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/root/.ssh", "/dev"}

// DefaultProtected is the protected set for a user whose home is home and
// whose odek home (config, secrets.env, sessions, approvals) is odekHome,
// plus extra (sandbox.protected_paths). Empty inputs are skipped.
func DefaultProtected(home, odekHome string, extra ...string) []string {
	var out []string
	if home != "" {
		for _, e := range homeSecrets {
			out = append(out, filepath.Join(home, e))
		}
	}
	if odekHome != "" {
		out = append(out, filepath.Clean(odekHome))
	}
	out = append(out, systemSecrets...)
	for _, e := range extra {
		if filepath.IsAbs(e) {
			out = append(out, filepath.Clean(e))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
