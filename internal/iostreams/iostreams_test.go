package iostreams

import (
	"errors"
	"testing"
)

// Test's streams are the buffers it returns, show no terminal and no
// environment, and never fall back to the process's command line or
// working directory.
func TestTestStreams(t *testing.T) {
	ios, in, out, errOut := Test()
	in.WriteString("task")
	b := make([]byte, 4)
	if n, _ := ios.In.Read(b); string(b[:n]) != "task" {
		t.Errorf("In reads %q, not the returned buffer", b[:n])
	}
	ios.Out.Write([]byte("o"))
	ios.ErrOut.Write([]byte("e"))
	if out.String() != "o" || errOut.String() != "e" {
		t.Errorf("out %q, errOut %q", out, errOut)
	}
	if ios.StdinTTY || ios.StdoutTTY || ios.StderrTTY || ios.Width() != 0 || ios.OutWidth() != 0 {
		t.Error("a test stream claims a terminal")
	}
	if ios.Args == nil || len(ios.Args) != 0 {
		t.Errorf("Args = %#v, want empty and not nil (nil means os.Args)", ios.Args)
	}
	if _, err := ios.Getwd(); !errors.Is(err, ErrNoWorkingDirectory) {
		t.Errorf("Getwd: %v", err)
	}
	if ios.Chdir != nil || ios.Env("HOME") != "" || ios.Environ != nil {
		t.Error("test streams see the process's environment or may change directory")
	}
}

func TestEnvMap(t *testing.T) {
	ios, _, _, _ := Test()
	ios.LookupEnv = EnvMap(map[string]string{"A": "1", "B": ""})
	if v, ok := ios.LookupEnv("B"); !ok || v != "" {
		t.Errorf("B = %q, %v: set but empty", v, ok)
	}
	if ios.Env("A") != "1" || ios.Env("C") != "" {
		t.Errorf("A = %q, C = %q", ios.Env("A"), ios.Env("C"))
	}
}
