package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podRun is one pod on the node. Its fields are guarded by provider.mu,
// except ended, which is closed once every started container has ended.
type podRun struct {
	pod        *corev1.Pod // as created, with deletion marks added
	dir        string      // host state: volumes, logs, launch plans
	started    metav1.Time
	containers map[string]*containerRun
	order      []string // container names in spec order
	mounts     []string // mount-point directories made for this pod, deepest first
	deleting   bool
	ended      chan struct{}
	running    int // containers whose process has not ended
}

// containerRun is one container's state.
type containerRun struct {
	name, image string
	log         *containerLog
	pgid        int // 0 until started
	waiting     *corev1.ContainerStateWaiting
	startedAt   metav1.Time
	finished    *corev1.ContainerStateTerminated
}

func newPodRun(pod *corev1.Pod, dir string) *podRun {
	pr := &podRun{pod: pod.DeepCopy(), dir: dir, started: metav1.Now(), containers: map[string]*containerRun{}, ended: make(chan struct{})}
	for _, c := range pod.Spec.Containers {
		pr.containers[c.Name] = &containerRun{name: c.Name, image: c.Image,
			waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
		pr.order = append(pr.order, c.Name)
	}
	return pr
}

// runningGroups are the process groups of the containers still running.
func (pr *podRun) runningGroups() []int {
	var out []int
	for _, c := range pr.containers {
		if c.pgid != 0 && c.finished == nil {
			out = append(out, c.pgid)
		}
	}
	return out
}

func (pr *podRun) startedAny() bool {
	for _, c := range pr.containers {
		if c.pgid != 0 {
			return true
		}
	}
	return false
}

// snapshot is the pod with the status this node reports for it.
func (pr *podRun) snapshot() *corev1.Pod {
	pod := pr.pod.DeepCopy()
	st := &pod.Status
	st.HostIP, st.PodIP = "127.0.0.1", "127.0.0.1"
	st.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
	st.PodIPs = []corev1.PodIP{{IP: "127.0.0.1"}}
	st.StartTime = &pr.started
	st.ContainerStatuses = nil
	waiting, running, failed := 0, 0, 0
	for _, name := range pr.order {
		c := pr.containers[name]
		cs := corev1.ContainerStatus{Name: name, Image: c.image, ImageID: "odek-test-node://" + c.image}
		switch {
		case c.finished != nil:
			cs.State.Terminated = c.finished.DeepCopy()
			cs.ContainerID = cs.State.Terminated.ContainerID
			if c.finished.ExitCode != 0 {
				failed++
			}
		case c.pgid != 0:
			started := true
			cs.Ready, cs.Started = true, &started
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: c.startedAt}
			cs.ContainerID = containerID(pr, name)
			running++
		default:
			cs.State.Waiting = c.waiting.DeepCopy()
			waiting++
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	switch {
	case waiting > 0:
		st.Phase = corev1.PodPending
	case running > 0:
		st.Phase = corev1.PodRunning
	case failed > 0:
		st.Phase = corev1.PodFailed
	default:
		st.Phase = corev1.PodSucceeded
	}
	ready := corev1.ConditionFalse
	if running == len(pr.order) {
		ready = corev1.ConditionTrue
	}
	started := corev1.ConditionFalse
	if waiting == 0 {
		started = corev1.ConditionTrue
	}
	st.Conditions = setCondition(st.Conditions, corev1.PodReadyToStartContainers, started, pr.started)
	st.Conditions = setCondition(st.Conditions, corev1.PodInitialized, corev1.ConditionTrue, pr.started)
	st.Conditions = setCondition(st.Conditions, corev1.ContainersReady, ready, pr.started)
	st.Conditions = setCondition(st.Conditions, corev1.PodReady, ready, pr.started)
	return pod
}

func containerID(pr *podRun, name string) string {
	return "odek-test-node://" + string(pr.pod.UID) + "/" + name
}

// setCondition sets a pod condition, keeping its transition time when its
// status does not change.
func setCondition(conds []corev1.PodCondition, t corev1.PodConditionType, s corev1.ConditionStatus, since metav1.Time) []corev1.PodCondition {
	for i := range conds {
		if conds[i].Type == t {
			if conds[i].Status != s {
				conds[i].Status = s
				conds[i].LastTransitionTime = metav1.NewTime(time.Now())
			}
			return conds
		}
	}
	return append(conds, corev1.PodCondition{Type: t, Status: s, LastTransitionTime: since})
}
