package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// Exit codes the helper gives of its own, as a local child would.
const (
	exitError     = 1
	exitSetup     = 3
	exitInterrupt = 130
)

// Options are one run of the helper.
type Options struct {
	Args      []string // after the program name: subagent --task FILE …
	LookupEnv func(string) (string, bool)
	// Key is the API key odek handed over on descriptor 3 ("" = none);
	// KeyErr is the handover's failure.
	Key    string
	KeyErr error
	Stdout io.Writer // the child's stdout as odek reads it
	Stderr io.Writer // one line on how the pod ended, for odek's error messages
	// Version is the helper's odek version, the parent's when
	// wire.EnvParentVersion is unset.
	Version string
	// Client and Namespace replace the cluster the settings name (tests).
	Client    kubernetes.Interface
	Namespace string
	// Logs opens the pod's log, following it; nil = the API server's.
	Logs func(ctx context.Context, ns, pod string) (io.ReadCloser, error)
	// CleanupTimeout bounds the wait for a deleted Job to be gone; 0 = 20 s.
	CleanupTimeout time.Duration
	// ExitTimeout bounds the wait for the pod's end once its log ended;
	// 0 = 30 s.
	ExitTimeout time.Duration
}

// helper is one child's life on the cluster.
type helper struct {
	o      Options
	args   childArgs
	task   *wire.Task
	s      *wire.KubeSettings
	client kubernetes.Interface
	ns     string
	name   string
	gone   bool // cleanup ran
}

// Main runs one child as a Job and returns the exit code a local child
// would have given. Whatever happens after the Job exists, the Job is
// deleted before Main returns.
func Main(ctx context.Context, o Options) int {
	h := &helper{o: o}
	if err := h.setup(); err != nil {
		h.writeResult(&wire.Result{Status: wire.StatusError, Error: err.Error(), Usage: &wire.Usage{}})
		return exitSetup
	}
	job, err := h.create(ctx)
	if job != nil {
		defer h.cleanup()
	}
	if err != nil {
		h.writeResult(&wire.Result{Status: wire.StatusError, Error: err.Error(), Usage: &wire.Usage{}})
		return exitSetup
	}
	return h.follow(ctx)
}

// setup reads the arguments, the settings, the task and the key, and
// connects.
func (h *helper) setup() error {
	var err error
	if h.args, err = parseArgs(h.o.Args); err != nil {
		return err
	}
	if h.o.KeyErr != nil {
		return h.o.KeyErr
	}
	if h.s, err = readSettings(h.o.LookupEnv); err != nil {
		return err
	}
	if h.task, err = readTask(h.args.TaskFile); err != nil {
		return err
	}
	if !wire.IsTaskID(h.task.TaskID) {
		return errors.New("task file: the kubernetes runner needs the task_id odek writes")
	}
	h.name = jobName(h.task.TaskID)
	if h.client, h.ns = h.o.Client, h.o.Namespace; h.client == nil {
		h.client, h.ns, err = connect(h.s, h.o.LookupEnv)
	}
	return err
}

func readTask(path string) (*wire.Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("task file: %w", err)
	}
	return wire.ParseTask(data)
}

// create makes the Job, then the ConfigMap and the Secret it owns (its pod
// waits for its volumes). The Job is returned as soon as it exists, so that
// a later failure still deletes it.
func (h *helper) create(ctx context.Context) (*batchv1.Job, error) {
	data, err := taskCopy(h.task)
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigMapBytes {
		return nil, fmt.Errorf("task file: %d bytes do not fit a ConfigMap (at most %d)", len(data), maxConfigMapBytes)
	}
	cs := &childSpec{Name: h.name, Namespace: h.ns, Task: data, Key: h.o.Key, Args: podArgs(h.args, h.o.Key != ""),
		Env: podEnv(h.o.LookupEnv), Labels: labelsFor(h.s, h.task), Goal: h.task.Goal, Timeout: h.args.TimeoutSeconds, S: h.s}
	job, err := h.client.BatchV1().Jobs(h.ns).Create(ctx, cs.job(), createOpts)
	if err != nil {
		return nil, fmt.Errorf("creating Job %s/%s: %w", h.ns, h.name, err)
	}
	if _, err := h.client.CoreV1().ConfigMaps(h.ns).Create(ctx, cs.configMap(job), createOpts); err != nil {
		return job, fmt.Errorf("creating ConfigMap %s/%s: %w", h.ns, h.name, err)
	}
	if cs.Key != "" {
		if _, err := h.client.CoreV1().Secrets(h.ns).Create(ctx, cs.secret(job), createOpts); err != nil {
			return job, fmt.Errorf("creating Secret %s/%s: %w", h.ns, h.name, err)
		}
	}
	return job, nil
}

// follow waits for the pod, relays its log and reports its end.
func (h *helper) follow(ctx context.Context) int {
	wait := time.Duration(min(h.s.ScheduleTimeoutSeconds, h.args.TimeoutSeconds)) * time.Second
	pod, err := waitRunning(ctx, h.client, h.ns, h.name, wait)
	if err != nil {
		return h.notRunning(ctx, err)
	}
	r := newRelay(h.o.Stdout)
	log, err := h.openLog(ctx, pod)
	if err == nil {
		err = r.read(ctx, log)
	}
	var fe *wire.FloodError
	switch {
	case errors.As(err, &fe):
		h.cleanup() // before the parent hears of it: it may kill this process then
		h.writeResult(&wire.Result{Status: wire.StatusKilledFlood, Error: fe.Error()})
		return exitError
	case ctx.Err() != nil:
		return h.cancelled(r)
	case err != nil:
		h.stderr("reading the log of pod %s/%s: %v", h.ns, pod, err)
	}
	code, how, werr := waitExit(ctx, h.client, h.ns, h.name, h.exitTimeout())
	if werr != nil {
		if ctx.Err() != nil {
			return h.cancelled(r)
		}
		h.stderr("%v", werr)
		code = exitError
	} else {
		h.stderr("pod %s/%s ended: exit %d (%s)", h.ns, pod, code, how)
	}
	return h.finish(r, code)
}

// notRunning ends a child whose pod never ran: it spent nothing. A child
// its parent stopped has its Job deleted before the result is written, as
// cancelled does: the parent may kill the helper once it has the result.
func (h *helper) notRunning(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		h.cleanup()
		h.writeResult(&wire.Result{Status: wire.StatusError, Error: ErrCancelled.Error() + " before its pod ran", Usage: &wire.Usage{}})
		return exitInterrupt
	}
	h.writeResult(&wire.Result{Status: wire.StatusError, Error: err.Error(), Usage: &wire.Usage{}})
	var ns *NotStartedError
	if errors.As(err, &ns) {
		return exitError
	}
	return exitSetup // the API refused to list or watch: RBAC, a wrong namespace
}

// cancelled ends a child its parent stopped: the Job goes first, then
// whatever result the child had sent is passed on.
func (h *helper) cancelled(r *relay) int {
	h.cleanup()
	if r.result != nil {
		_, _ = h.o.Stdout.Write(r.result)
	} else {
		h.writeResult(&wire.Result{Status: wire.StatusError, Error: ErrCancelled.Error()})
	}
	return exitInterrupt
}

// openLog follows the child container's log.
func (h *helper) openLog(ctx context.Context, pod string) (io.ReadCloser, error) {
	if h.o.Logs != nil {
		return h.o.Logs(ctx, h.ns, pod)
	}
	return h.client.CoreV1().Pods(h.ns).GetLogs(pod, &corev1.PodLogOptions{Container: containerName, Follow: true}).Stream(ctx)
}

func (h *helper) exitTimeout() time.Duration {
	if h.o.ExitTimeout > 0 {
		return h.o.ExitTimeout
	}
	return 30 * time.Second
}

func (h *helper) stderr(format string, args ...any) {
	if h.o.Stderr != nil {
		fmt.Fprintf(h.o.Stderr, "odek-kube: "+format+"\n", args...)
	}
}
