package risk

import "strings"

// execVars are environment variables that change which program runs, or
// make a program run code: setting one is code execution.
var execVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS4": true, "IFS": true,
	"SHELLOPTS": true, "BASHOPTS": true, "EDITOR": true, "VISUAL": true, "PAGER": true,
	"MANPAGER": true, "SYSTEMD_PAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "NODE_OPTIONS": true,
	"NODE_PATH": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true,
	"RUBYLIB": true, "GCONV_PATH": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GOFLAGS": true, "GOTOOLCHAIN": true, "GOROOT": true, "CC": true, "CXX": true,
	"CGO_CFLAGS": true, "CGO_LDFLAGS": true, "RUSTC_WRAPPER": true, "RUSTFLAGS": true,
	"CARGO_BUILD_RUSTC_WRAPPER": true, "MAKEFLAGS": true, "TAR_OPTIONS": true, "GREP_OPTIONS": true,
}

// execVarPrefixes are families of such variables.
var execVarPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_SSH", "GIT_EXEC", "GIT_EDITOR",
	"GIT_PAGER", "GIT_EXTERNAL", "GIT_ASKPASS", "GIT_CONFIG", "GIT_PROXY", "NPM_CONFIG_", "npm_config_"}

// execVar reports whether setting name can change what runs.
func execVar(name string) bool {
	if execVars[name] {
		return true
	}
	for _, p := range execVarPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
