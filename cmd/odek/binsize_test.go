package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// TestNoMethodLookupByName: nothing in odek's binary reaches
// reflect.Value.MethodByName (text/template's field evaluation is the usual
// way in: cobra's Set*Template). Once it is reachable the linker keeps every
// exported method of every type that can sit in an interface: 1.9 MB more
// binary and 1.5 MiB more RSS in every process (issue 23).
func TestNoMethodLookupByName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testbin.Build(t, "odek", "./cmd/odek")
	out, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool nm: %v\n%s", err, out)
	}
	for _, sym := range []string{"reflect.Value.MethodByName", "text/template.(*state).evalField"} {
		if strings.Contains(string(out), " "+sym+"\n") {
			t.Errorf("%s is linked into odek: something executes a text/template or looks methods up by name (cobra's SetVersionTemplate, SetHelpTemplate and SetUsageTemplate do)", sym)
		}
	}
}
