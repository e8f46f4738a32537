package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// launchPlan is what the agent hands its launch child: the container's
// mounts, working directory, argv and environment. The child runs in a new
// mount namespace (CLONE_NEWNS), so its bind mounts are its own.
type launchPlan struct {
	Mounts []bindMount `json:"mounts"`
	Dir    string      `json:"dir,omitempty"`
	Argv   []string    `json:"argv"`
	Env    []string    `json:"env"`
}

// bindMount puts host directory Source at Target inside the container.
type bindMount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// launchExit is the exit code of a container that could not be started,
// as a container runtime reports it.
const launchExit = 128

// launch enters the plan's mounts and executes its command; it never
// returns. A failure is written to stderr (the container's log) and ends
// the process with launchExit.
func launch(planFile string) {
	if err := enter(planFile); err != nil {
		fmt.Fprintf(os.Stderr, "nodeagent: starting container: %v\n", err)
		os.Exit(launchExit)
	}
}

func enter(planFile string) error {
	data, err := os.ReadFile(planFile)
	if err != nil {
		return err
	}
	var plan launchPlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return fmt.Errorf("plan %s: %w", planFile, err)
	}
	if len(plan.Argv) == 0 {
		return fmt.Errorf("plan %s: no command", planFile)
	}
	// Nothing mounted here may propagate back to the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	for _, m := range plan.Mounts {
		if err := bind(m); err != nil {
			return err
		}
	}
	if plan.Dir != "" {
		if err := os.Chdir(plan.Dir); err != nil {
			return fmt.Errorf("workingDir: %w", err)
		}
	}
	path := plan.Argv[0]
	if filepath.Base(path) == path {
		// Resolved on the container's PATH, after its mounts are in place.
		for _, kv := range plan.Env {
			if len(kv) > 5 && kv[:5] == "PATH=" {
				os.Setenv("PATH", kv[5:])
			}
		}
		if path, err = exec.LookPath(path); err != nil {
			return err
		}
	}
	return syscall.Exec(path, plan.Argv, plan.Env)
}

func bind(m bindMount) error {
	if err := unix.Mount(m.Source, m.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("mounting %s at %s: %w", m.Source, m.Target, err)
	}
	if !m.ReadOnly {
		return nil
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	if err := unix.Mount("", m.Target, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", m.Target, err)
	}
	return nil
}
