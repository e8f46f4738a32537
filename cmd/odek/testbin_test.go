package main

import (
	"flag"
	"runtime"
	"strconv"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// sharedM runs the tests with more of them in parallel than go test's
// default (GOMAXPROCS), unless -parallel was given, and removes the built
// programs after them (testbin). This package's parallel tests are end-to-end
// scripts and runs of odek, which spend most of their time waiting for
// processes, pipes and the fake model, not computing: at the default two
// on a 2-core machine the package used a third of the CPU.
type sharedM struct{ m *testing.M }

// parallelPerCPU is how many parallel tests run per CPU.
const parallelPerCPU = 3

func (s sharedM) Run() int {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelPerCPU*runtime.GOMAXPROCS(0)))
	}
	return testbin.Main(s.m)
}
