package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultPath is the PATH a container gets when its spec sets none, as in
// most images.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// start prepares the pod's volumes and starts its containers. While a
// volume cannot be prepared (a ConfigMap not there yet) every container
// waits with CreateContainerConfigError, and while an image has no
// mapping its container waits with ErrImagePull; the pod stays Pending and
// the agent retries every second, as a kubelet does, until the pod is
// deleted.
func (p *provider) start(pr *podRun) {
	pod := pr.pod
	var plans map[string]string
	last := ""
	for {
		var err error
		if plans, err = p.plan(pr); err == nil {
			break
		}
		p.mu.Lock()
		if !errors.Is(err, errImageUnmapped) {
			for _, c := range pr.containers {
				c.waiting = &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: err.Error()}
			}
		}
		deleting := pr.deleting
		p.mu.Unlock()
		if err.Error() != last {
			last = err.Error()
			p.changed(pr)
		}
		if deleting {
			return
		}
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	p.mu.Lock()
	pr.running = len(pod.Spec.Containers)
	p.mu.Unlock()
	for _, c := range pod.Spec.Containers {
		if err := p.startContainer(pr, c.Name, plans[c.Name]); err != nil {
			p.mu.Lock()
			now := metav1.Now()
			pr.containers[c.Name].finished = &corev1.ContainerStateTerminated{ExitCode: launchExit, Reason: "StartError",
				Message: err.Error(), StartedAt: now, FinishedAt: now, ContainerID: containerID(pr, c.Name)}
			p.mu.Unlock()
			p.ended(pr)
		}
	}
	p.changed(pr)
}

// plan writes each container's launch plan and returns the plans' paths.
func (p *provider) plan(pr *podRun) (map[string]string, error) {
	pod := pr.pod
	if len(pod.Spec.InitContainers) > 0 {
		return nil, errors.New("init containers are not supported by the test node")
	}
	if err := os.MkdirAll(pr.dir, 0o700); err != nil {
		return nil, err
	}
	vols, err := p.volumeDirs(p.ctx, pod, pr.dir)
	if err != nil {
		return nil, err
	}
	var unmapped []string
	plans := map[string]string{}
	for _, c := range pod.Spec.Containers {
		exe, ok := p.image(c.Image)
		if !ok {
			p.mu.Lock()
			pr.containers[c.Name].waiting = &corev1.ContainerStateWaiting{Reason: "ErrImagePull",
				Message: fmt.Sprintf("image %q is not known to the test node (no --image mapping)", c.Image)}
			p.mu.Unlock()
			unmapped = append(unmapped, c.Image)
			continue
		}
		plan, err := p.containerPlan(pr, c, exe, vols)
		if err != nil {
			return nil, fmt.Errorf("container %q: %w", c.Name, err)
		}
		data, _ := json.Marshal(plan)
		path := filepath.Join(pr.dir, c.Name+".plan.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
		plans[c.Name] = path
	}
	if len(unmapped) > 0 {
		return nil, fmt.Errorf("%w: %s", errImageUnmapped, strings.Join(unmapped, ", "))
	}
	return plans, nil
}

var errImageUnmapped = errors.New("an image is not known to the test node")

// image is the host executable of a container image: --image first, then
// the --image-map file as it is now (the last line naming it wins).
func (p *provider) image(name string) (string, bool) {
	if exe, ok := p.opts.images[name]; ok {
		return exe, true
	}
	if p.opts.imageMap == "" {
		return "", false
	}
	data, err := os.ReadFile(p.opts.imageMap)
	if err != nil {
		return "", false
	}
	exe, found := "", false
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && k == name && v != "" {
			exe, found = v, true
		}
	}
	return exe, found
}

// containerPlan is the container's argv, environment and mounts. The
// image's executable is the entrypoint: with no command it runs with the
// args; a command whose first word names that executable (its path or its
// base name) runs it with the rest; any other command runs as given.
func (p *provider) containerPlan(pr *podRun, c corev1.Container, exe string, vols map[string]hostVolume) (launchPlan, error) {
	env := p.containerEnv(pr.pod, c)
	lookup := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		lookup[k] = v
	}
	expandAll := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = expand(s, lookup)
		}
		return out
	}
	cmd, args := expandAll(c.Command), expandAll(c.Args)
	var argv []string
	switch {
	case len(cmd) == 0:
		argv = append([]string{exe}, args...)
	case cmd[0] == exe || filepath.Base(cmd[0]) == filepath.Base(exe):
		argv = append(append([]string{exe}, cmd[1:]...), args...)
	default:
		argv = append(cmd, args...)
	}
	plan := launchPlan{Argv: argv, Env: env, Dir: c.WorkingDir}
	for _, vm := range c.VolumeMounts {
		v, ok := vols[vm.Name]
		if !ok {
			return plan, fmt.Errorf("volume mount %q names no volume", vm.Name)
		}
		src := v.path
		if vm.SubPath != "" {
			src = filepath.Join(src, vm.SubPath)
		}
		plan.Mounts = append(plan.Mounts, bindMount{Source: src, Target: vm.MountPath, ReadOnly: v.readOnly || vm.ReadOnly})
	}
	// A mount inside another one goes after it.
	sort.SliceStable(plan.Mounts, func(i, j int) bool { return len(plan.Mounts[i].Target) < len(plan.Mounts[j].Target) })
	return plan, nil
}

// containerEnv is the container's environment: a base like an image's,
// the API server's address as in-cluster clients expect it, then the
// spec's variables in order, each expanded against those before it.
func (p *provider) containerEnv(pod *corev1.Pod, c corev1.Container) []string {
	vals := map[string]string{"PATH": defaultPath, "HOSTNAME": pod.Name, "HOME": "/root"}
	order := []string{"PATH", "HOSTNAME", "HOME"}
	if host, port, err := net.SplitHostPort(p.opts.apiserver); err == nil {
		for k, v := range map[string]string{"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port} {
			vals[k] = v
			order = append(order, k)
		}
	}
	for _, e := range c.Env {
		v := expand(e.Value, vals)
		if _, seen := vals[e.Name]; !seen {
			order = append(order, e.Name)
		}
		vals[e.Name] = v
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out
}

// startContainer runs the launch child for one container: its own process
// group and mount namespace, stdout and stderr into the container's log.
func (p *provider) startContainer(pr *podRun, name, planPath string) error {
	var plan launchPlan
	data, err := os.ReadFile(planPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		return err
	}
	p.mu.Lock()
	p.makeMountPoints(pr, plan.Mounts)
	p.mu.Unlock()
	lg, err := newContainerLog(filepath.Join(pr.dir, name+".log"))
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "launch", planPath)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	// Started under the lock, so that DeletePod either sees the process
	// group or stops the start.
	p.mu.Lock()
	c := pr.containers[name]
	if pr.deleting {
		err = errors.New("the pod was deleted before the container started")
	} else {
		err = cmd.Start()
	}
	if err == nil {
		c.log, c.pgid, c.startedAt, c.waiting = lg, cmd.Process.Pid, metav1.Now(), nil
	}
	p.mu.Unlock()
	w.Close()
	if err != nil {
		r.Close()
		lg.finish()
		return err
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(lg, r)
		r.Close()
		close(copied)
	}()
	go p.wait(pr, c, cmd, copied)
	return nil
}

// wait records a container's end. What the main process left running in
// its group is killed, as a container runtime does.
func (p *provider) wait(pr *podRun, c *containerRun, cmd *exec.Cmd, copied <-chan struct{}) {
	cmd.Wait()
	syscall.Kill(-c.pgid, syscall.SIGKILL)
	<-copied
	c.log.finish()
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	p.mu.Lock()
	c.finished = &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason,
		StartedAt: c.startedAt, FinishedAt: metav1.Now(), ContainerID: containerID(pr, c.name)}
	p.mu.Unlock()
	p.changed(pr)
	p.ended(pr)
}

// ended counts one container of the pod as ended; after the last one the
// pod's mount points go, and a pod being deleted is forgotten.
func (p *provider) ended(pr *podRun) {
	p.mu.Lock()
	pr.running--
	last := pr.running == 0
	if last {
		p.releaseMountPoints(pr)
	}
	deleting := pr.deleting
	p.mu.Unlock()
	if !last {
		return
	}
	close(pr.ended)
	if deleting {
		p.removeFromAPI(pr)
		p.forget(podKey(pr.pod.Namespace, pr.pod.Name), pr)
	}
}

// removeFromAPI finishes a deleted pod's deletion once its containers have
// ended, as a kubelet does: its final status, then a delete with no grace
// period. virtual-kubelet alone would wait for the whole grace period.
func (p *provider) removeFromAPI(pr *podRun) {
	p.mu.Lock()
	snap := pr.snapshot()
	p.mu.Unlock()
	pods := p.client.CoreV1().Pods(snap.Namespace)
	if cur, err := pods.Get(p.ctx, snap.Name, metav1.GetOptions{}); err == nil && cur.UID == snap.UID {
		cur.Status = snap.Status
		pods.UpdateStatus(p.ctx, cur, metav1.UpdateOptions{}) // a conflict leaves virtual-kubelet's update
	}
	zero := int64(0)
	pods.Delete(p.ctx, snap.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero,
		Preconditions: &metav1.Preconditions{UID: &snap.UID}})
}
