package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/odek-run/odek/internal/untrusted"
)

// jobNameLabel is the label the Job controller puts on a Job's pods.
const jobNameLabel = "batch.kubernetes.io/job-name"

// A container waiting for one of these will not start by waiting longer.
var permanentWaits = map[string]bool{"InvalidImageName": true, "ErrImageNeverPull": true}

// podWait is what a pod waits for: "" once its container runs or ran
// (its log can be read), else what it has not been ("created",
// "scheduled", "started") and the cluster's reason.
type podWait struct {
	what, reason string
	permanent    bool
}

// waitOf classifies a pod on its way to running.
func waitOf(p *corev1.Pod) podWait {
	switch p.Status.Phase {
	case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
		return podWait{}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return podWait{what: "scheduled", reason: reasonText(c.Reason, c.Message)}
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return podWait{what: "started", reason: reasonText(w.Reason, w.Message), permanent: permanentWaits[w.Reason]}
		}
	}
	if p.Spec.NodeName == "" {
		return podWait{what: "scheduled"}
	}
	return podWait{what: "started"}
}

// reasonText is "Reason: message", on one bounded line (the cluster's
// words reach the model through the result).
func reasonText(reason, msg string) string {
	s := reason
	if msg != "" {
		s += ": " + msg
	}
	return untrusted.OneLine(s, 400)
}

// watchPods calls judge with every state of the Job's pods, from a list
// and then a watch (listed again when the watch ends), until judge says
// done, ctx ends or the timer fires (then onTimeout's error).
func watchPods(ctx context.Context, c kubernetes.Interface, ns, job string, timer <-chan time.Time,
	judge func(*corev1.Pod) (bool, error), onTimeout func() error) error {
	pods := c.CoreV1().Pods(ns)
	sel := metav1.ListOptions{LabelSelector: jobNameLabel + "=" + job}
	for {
		list, err := pods.List(ctx, sel)
		if err != nil {
			return err
		}
		for i := range list.Items {
			if done, err := judge(&list.Items[i]); done || err != nil {
				return err
			}
		}
		opts := sel
		opts.ResourceVersion = list.ResourceVersion
		w, err := pods.Watch(ctx, opts)
		if err != nil {
			return err
		}
		done, err := drain(ctx, w.ResultChan(), timer, judge, onTimeout)
		w.Stop()
		if done || err != nil {
			return err
		}
	}
}

// drain takes a watch's events until judge is done, the watch closes
// (done false: list again) or ctx or the timer ends.
func drain(ctx context.Context, events <-chan watch.Event, timer <-chan time.Time,
	judge func(*corev1.Pod) (bool, error), onTimeout func() error) (bool, error) {
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-timer:
			return true, onTimeout()
		case ev, ok := <-events:
			if !ok {
				return false, nil
			}
			if p, ok := ev.Object.(*corev1.Pod); ok {
				if done, err := judge(p); done || err != nil {
					return true, err
				}
			}
		}
	}
}

// waitRunning waits until the Job's pod runs or ran, at most timeout: a
// pod not scheduled, or whose image is not pulled, by then is a
// *NotStartedError with the cluster's reason (a Job that made no pod: the
// reason of its last warning event).
func waitRunning(ctx context.Context, c kubernetes.Interface, ns, job string, timeout time.Duration) (string, error) {
	last := podWait{what: "created"}
	var pod string
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	err := watchPods(ctx, c, ns, job, timer.C, func(p *corev1.Pod) (bool, error) {
		w := waitOf(p)
		if w.what == "" {
			pod = p.Name
			return true, nil
		}
		last = w
		if w.permanent {
			return true, &NotStartedError{What: w.what, After: "its first try", Reason: w.reason}
		}
		return false, nil
	}, func() error {
		if last.what == "created" {
			last.reason = jobWarning(c, ns, job)
		}
		return &NotStartedError{What: last.what, After: timeout.String(), Reason: last.reason}
	})
	return pod, err
}

// jobWarning is the message of the Job's last warning event (a quota or an
// admission webhook that refused its pod), or "".
func jobWarning(c kubernetes.Interface, ns, job string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sel := fields.Set{"involvedObject.kind": "Job", "involvedObject.name": job, "type": corev1.EventTypeWarning}.AsSelector().String()
	evs, err := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil || len(evs.Items) == 0 {
		return ""
	}
	e := evs.Items[len(evs.Items)-1]
	return reasonText(e.Reason, e.Message)
}

// exitOf is the child container's end: its exit code and how it ended, or
// ok false while it has not.
func exitOf(p *corev1.Pod) (code int, how string, ok bool) {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != containerName {
			continue
		}
		if t := cs.State.Terminated; t != nil {
			return int(t.ExitCode), reasonText(t.Reason, strings.TrimSpace(t.Message)), true
		}
	}
	if p.Status.Phase == corev1.PodFailed { // killed before its container ran (a deadline)
		return -1, reasonText(p.Status.Reason, p.Status.Message), true
	}
	return 0, "", false
}

// waitExit waits, at most timeout, for the child container's end once its
// log has ended (the node reports it a moment after the process exits).
func waitExit(ctx context.Context, c kubernetes.Interface, ns, job string, timeout time.Duration) (int, string, error) {
	var code int
	var how string
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	err := watchPods(ctx, c, ns, job, timer.C, func(p *corev1.Pod) (bool, error) {
		var ok bool
		code, how, ok = exitOf(p)
		return ok, nil
	}, func() error { return fmt.Errorf("the pod's end was not reported within %s of its log's end", timeout) })
	return code, how, err
}
