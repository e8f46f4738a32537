package cassette

import (
	"strings"
	"testing"
)

func TestAgentsMismatch(t *testing.T) {
	t.Parallel()
	a := AgentsFile{Name: "AGENTS.md", SHA256: strings.Repeat("a", 64)}
	b := AgentsFile{Name: "sub/AGENTS.md", SHA256: strings.Repeat("b", 64)}
	changed := AgentsFile{Name: "sub/AGENTS.md", SHA256: strings.Repeat("c", 64)}
	for _, tc := range []struct {
		name          string
		recorded, now []AgentsFile
		want          string
	}{
		{"none", nil, nil, ""},
		{"same", []AgentsFile{a, b}, []AgentsFile{a, b}, ""},
		{"added", []AgentsFile{a}, []AgentsFile{a, b}, "sub/AGENTS.md is read now and was not when recording"},
		{"left out", []AgentsFile{a, b}, []AgentsFile{a}, "sub/AGENTS.md was read when recording and is not now"},
		{"changed", []AgentsFile{a, b}, []AgentsFile{a, changed}, "sub/AGENTS.md changed (sha256 cccccccccccc, recorded bbbbbbbbbbbb)"},
		{"other file", []AgentsFile{b}, []AgentsFile{a}, "AGENTS.md is read now where the recording read sub/AGENTS.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := AgentsMismatch(tc.recorded, tc.now); got != tc.want {
				t.Errorf("AgentsMismatch = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadMetaAgentsFiles(t *testing.T) {
	t.Parallel()
	m, err := ReadMeta([]byte(`{"format":"` + Format + `","agents_files":[{"name":"AGENTS.md","sha256":"` + strings.Repeat("a", 64) + `"}]}`))
	if err != nil || len(m.AgentsFiles) != 1 || m.AgentsFiles[0].Name != "AGENTS.md" {
		t.Fatalf("ReadMeta = %+v, %v", m, err)
	}
}
