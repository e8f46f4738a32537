package kubetest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// component is one running program of the plane, its output in a log
// file beside the plane's other files.
type component struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startComponent runs a program in its own process group; it dies with
// the test binary (SIGKILL when the parent goes) if Stop never runs.
func startComponent(dir, name, path string, args ...string) (*component, error) {
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = dir
	cmd.SysProcAttr = componentAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &component{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// exited reports whether the program has ended.
func (c *component) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the program's group and waits; SIGKILL after
// grace. No process of the group is left when it returns.
func (c *component) stop(grace time.Duration) {
	pgid := c.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-c.done
}

// logTail is the end of the program's log, for error messages.
func (c *component) logTail() string {
	data, _ := os.ReadFile(c.log)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data)
}

// notReady is the error of a component that did not become ready.
func (c *component) notReady(what string, cause error) error {
	state := "still running"
	if c.exited() {
		state = fmt.Sprintf("exited: %v", c.err)
	}
	if cause != nil {
		state += ", " + cause.Error()
	}
	return fmt.Errorf("%w: %s: %s (%s); the end of %s:\n%s", ErrNotReady, c.name, what, state, c.log, c.logTail())
}

// freePorts returns n distinct loopback ports free at the time of asking.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
