package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
)

// secretsFile holds what secrets.env provides: env has only the names the
// real environment lacks, because the file must never override it; names
// has every name the file defines, sorted: the operator declared each one a
// secret, also one the real environment sets too.
type secretsFile struct {
	env   map[string]string
	names []string
}

// loadSecrets reads path. A missing file provides nothing; an unreadable or
// oversized one is a setup error. Malformed lines are skipped with a warning
// that gives the line number but never the value.
func loadSecrets(path string, lookup func(string) (string, bool)) (secretsFile, []string, error) {
	data, found, err := readLimited(path)
	if err != nil || !found {
		return secretsFile{}, nil, err
	}
	var warns []string
	if w := secretsModeWarning(path); w != "" {
		warns = append(warns, w)
	}
	env := map[string]string{}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	for n := 1; sc.Scan(); n++ {
		key, val, ok, bad := parseSecretLine(sc.Text())
		if bad {
			warns = append(warns, fmt.Sprintf("%s:%d: ignoring line: want KEY=VALUE with KEY matching [A-Za-z_][A-Za-z0-9_]*", path, n))
		}
		if !ok {
			continue
		}
		if !slices.Contains(names, key) {
			names = append(names, key)
		}
		if _, set := lookup(key); set {
			continue // the real environment always wins
		}
		env[key] = val
	}
	if len(names) == 0 {
		return secretsFile{}, warns, nil
	}
	slices.Sort(names)
	if len(env) == 0 {
		env = nil
	}
	return secretsFile{env: env, names: names}, warns, nil
}

// parseSecretLine splits one line. ok means a pair was found; bad means the
// line was neither blank, a comment nor a valid pair. An optional "export "
// prefix and one pair of matching surrounding quotes are removed so the file
// can also be sourced by a shell.
func parseSecretLine(line string) (key, val string, ok, bad bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", "", false, false
	}
	line = strings.TrimPrefix(line, "export ")
	k, v, found := strings.Cut(line, "=")
	k = strings.TrimSpace(k)
	if !found || k == "" || nameLen(k) != len(k) {
		return "", "", false, true
	}
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return k, v, true, false
}

// secretsModeWarning flags a secrets file other users can read.
func secretsModeWarning(path string) string {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("%s is readable by other users (mode %04o); run: chmod 600 %s", path, fi.Mode().Perm(), path)
}
