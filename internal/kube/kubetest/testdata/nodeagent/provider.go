package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// provider runs pods as local processes; it is the virtual-kubelet
// provider of the test node. Status changes reach the API server through
// the callback virtual-kubelet registers with NotifyPods.
type provider struct {
	ctx    context.Context // the agent's lifetime: API calls of pod start-up
	client kubernetes.Interface
	opts   options

	mu      sync.Mutex
	pods    map[string]*podRun // by namespace/name
	created map[string]int     // mount-point directories this agent made → pods using them
	notify  func(*corev1.Pod)
}

func newProvider(ctx context.Context, client kubernetes.Interface, opts options) *provider {
	return &provider{ctx: ctx, client: client, opts: opts, pods: map[string]*podRun{}, created: map[string]int{}}
}

func podKey(ns, name string) string { return ns + "/" + name }

// CreatePod starts the pod's containers in the background.
func (p *provider) CreatePod(_ context.Context, pod *corev1.Pod) error {
	key := podKey(pod.Namespace, pod.Name)
	p.mu.Lock()
	if _, ok := p.pods[key]; ok {
		p.mu.Unlock()
		return nil
	}
	pr := newPodRun(pod, filepath.Join(p.opts.root, "pods", string(pod.UID)))
	p.pods[key] = pr
	p.mu.Unlock()
	go p.start(pr)
	return nil
}

// UpdatePod changes nothing: what may change in a running pod's spec does
// not matter to a local process.
func (p *provider) UpdatePod(context.Context, *corev1.Pod) error { return nil }

// DeletePod stops the pod: SIGTERM to each container's process group, then
// SIGKILL when the grace period ends. A pod whose containers have all
// ended is forgotten at once (its logs with it).
func (p *provider) DeletePod(_ context.Context, pod *corev1.Pod) error {
	key := podKey(pod.Namespace, pod.Name)
	p.mu.Lock()
	pr, ok := p.pods[key]
	if !ok || pr.pod.UID != pod.UID {
		p.mu.Unlock()
		return errdefs.NotFound("pod not known to the test node")
	}
	pr.deleting = true
	pr.pod.DeletionTimestamp = pod.DeletionTimestamp
	pr.pod.DeletionGracePeriodSeconds = pod.DeletionGracePeriodSeconds
	groups := pr.runningGroups()
	p.mu.Unlock()
	if len(groups) == 0 {
		p.forget(key, pr)
		return nil
	}
	grace := 30 * time.Second
	if s := pod.DeletionGracePeriodSeconds; s != nil {
		grace = time.Duration(*s) * time.Second
	}
	for _, pgid := range groups {
		syscall.Kill(-pgid, syscall.SIGTERM)
	}
	go func() {
		select {
		case <-pr.ended:
		case <-time.After(grace):
			for _, pgid := range groups {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}()
	return nil
}

// GetPod returns the pod as this node sees it.
func (p *provider) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.pods[podKey(ns, name)]
	if !ok {
		return nil, errdefs.NotFound("pod not known to the test node")
	}
	return pr.snapshot(), nil
}

// GetPodStatus returns the pod's status as this node sees it.
func (p *provider) GetPodStatus(ctx context.Context, ns, name string) (*corev1.PodStatus, error) {
	pod, err := p.GetPod(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

// GetPods returns every pod this node knows.
func (p *provider) GetPods(context.Context) ([]*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(p.pods))
	for _, pr := range p.pods {
		out = append(out, pr.snapshot())
	}
	return out, nil
}

// NotifyPods registers virtual-kubelet's status callback.
func (p *provider) NotifyPods(_ context.Context, f func(*corev1.Pod)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notify = f
}

// changed sends the pod's current status to the API server.
func (p *provider) changed(pr *podRun) {
	p.mu.Lock()
	pod, notify := pr.snapshot(), p.notify
	p.mu.Unlock()
	if notify != nil {
		notify(pod)
	}
}

// GetContainerLogs serves a container's log: stdout and stderr as written,
// from the tail'th line from the end when tailLines is set, up to
// limitBytes, following until the container ends when follow is set.
// Timestamps and since* are not supported and are ignored.
func (p *provider) GetContainerLogs(ctx context.Context, ns, pod, container string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	p.mu.Lock()
	pr, ok := p.pods[podKey(ns, pod)]
	var c *containerRun
	if ok {
		c = pr.containers[container]
	}
	p.mu.Unlock()
	if c == nil || c.log == nil {
		return nil, errdefs.NotFound(fmt.Sprintf("no log of container %q in pod %s/%s on the test node", container, ns, pod))
	}
	rc, err := c.log.open(ctx, opts.Tail, opts.Follow)
	if err != nil {
		return nil, err
	}
	if opts.LimitBytes > 0 {
		return limitedReadCloser{io.LimitReader(rc, int64(opts.LimitBytes)), rc}, nil
	}
	return rc, nil
}

type limitedReadCloser struct {
	io.Reader
	io.Closer
}

// forget drops an ended pod: its state directory and the mount points
// made for it that no other pod uses.
func (p *provider) forget(key string, pr *podRun) {
	p.mu.Lock()
	if p.pods[key] == pr {
		delete(p.pods, key)
	}
	p.releaseMountPoints(pr)
	p.mu.Unlock()
	os.RemoveAll(pr.dir)
}

// shutdown kills every pod's processes and waits for them: the agent
// leaves nothing running behind.
func (p *provider) shutdown() {
	p.mu.Lock()
	var all []*podRun
	for _, pr := range p.pods {
		for _, pgid := range pr.runningGroups() {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
		all = append(all, pr)
	}
	p.mu.Unlock()
	for _, pr := range all {
		if pr.startedAny() {
			<-pr.ended
		}
		p.forget(podKey(pr.pod.Namespace, pr.pod.Name), pr)
	}
}

// The kubelet API's other calls are not served by the test node.

func (p *provider) RunInContainer(context.Context, string, string, string, []string, api.AttachIO) error {
	return errdefs.InvalidInput("exec is not supported by the test node")
}

func (p *provider) AttachToContainer(context.Context, string, string, string, api.AttachIO) error {
	return errdefs.InvalidInput("attach is not supported by the test node")
}

func (p *provider) GetStatsSummary(context.Context) (*statsv1alpha1.Summary, error) {
	return nil, errdefs.InvalidInput("stats are not supported by the test node")
}

func (p *provider) GetMetricsResource(context.Context) ([]*dto.MetricFamily, error) {
	return nil, errdefs.InvalidInput("metrics are not supported by the test node")
}

func (p *provider) PortForward(context.Context, string, string, int32, io.ReadWriteCloser) error {
	return errdefs.InvalidInput("port-forward is not supported by the test node")
}
