package kubetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readyTimeout bounds each wait of the start-up: generous, since the
// machine may be shared and loaded.
const readyTimeout = 3 * time.Minute

// startServers starts etcd and the API server and waits until the API
// server is ready.
func (p *Plane) startServers(ctx context.Context, tl tools) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL, peerURL := "http://"+hostPort(ports[0]), "http://"+hostPort(ports[1])
	etcd, err := p.start("etcd", tl.etcd,
		"--name=plane", "--data-dir="+filepath.Join(p.dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=plane="+peerURL, "--log-level=warn")
	if err != nil {
		return err
	}
	if err := waitFor(ctx, etcd, "GET /health", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, etcdURL+"/health", `"health":"true"`), nil
	}); err != nil {
		return err
	}
	pk := p.pki.path
	server := "https://" + hostPort(ports[2])
	api, err := p.start("kube-apiserver", tl.apiserver,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports[2]),
		"--tls-cert-file="+pk(apiserverCert+".crt"), "--tls-private-key-file="+pk(apiserverCert+".key"),
		"--client-ca-file="+pk(caCert),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pk(saPub), "--service-account-signing-key-file="+pk(saKey),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--kubelet-client-certificate="+pk(kubeletClient+".crt"), "--kubelet-client-key="+pk(kubeletClient+".key"),
		"--kubelet-certificate-authority="+pk(caCert),
		"--kubelet-preferred-address-types=InternalIP",
		"--allow-privileged=true", "--profiling=false",
		// The kubernetes Service's endpoints would name 127.0.0.1, which the
		// reconciler refuses; in-cluster clients get the address by env.
		"--endpoint-reconciler-type=none",
		"--cert-dir="+filepath.Join(p.dir, "apiserver-certs"))
	if err != nil {
		return err
	}
	if err := p.writeKubeconfig(server); err != nil {
		return err
	}
	return waitFor(ctx, api, "GET /readyz", func(ctx context.Context) (bool, error) {
		body, err := p.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && strings.TrimSpace(string(body)) == "ok", nil
	})
}

// startControllers starts the controller manager, the scheduler and the
// node agent, and waits until the node is Ready and the default namespace
// has its default service account (pods cannot be created before).
func (p *Plane) startControllers(ctx context.Context, tl tools) error {
	controllers := strings.Join([]string{
		"job-controller", "garbage-collector-controller", "ttl-after-finished-controller",
		"serviceaccount-controller", "namespace-controller", "root-ca-certificate-publisher-controller",
		"pod-garbage-collector-controller",
		// The API server taints a new node not-ready; this controller lifts
		// the taint once the node reports Ready (and would evict from a node
		// that stops renewing its lease).
		"node-lifecycle-controller",
	}, ",")
	cm, err := p.start("kube-controller-manager", tl.controllerManager,
		"--kubeconfig="+p.Kubeconfig, "--controllers="+controllers,
		"--leader-elect=false", "--secure-port=0", "--root-ca-file="+p.pki.path(caCert),
		"--service-account-private-key-file="+p.pki.path(saKey))
	if err != nil {
		return err
	}
	if _, err := p.start("kube-scheduler", tl.scheduler,
		"--kubeconfig="+p.Kubeconfig, "--leader-elect=false", "--secure-port=0"); err != nil {
		return err
	}
	server := strings.TrimPrefix(p.Config.Host, "https://")
	node, err := p.start("nodeagent", tl.nodeAgent,
		"--kubeconfig="+p.Kubeconfig, "--node-name="+nodeName,
		"--tls-cert="+p.pki.path(nodeCert+".crt"), "--tls-key="+p.pki.path(nodeCert+".key"),
		"--root="+filepath.Join(p.dir, "node"), "--image-map="+p.imageMap, "--apiserver="+server)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, node, "node "+nodeName+" Ready and untainted", func(ctx context.Context) (bool, error) {
		n, err := p.Client.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		return err == nil && schedulable(n), nil
	}); err != nil {
		return err
	}
	return waitFor(ctx, cm, "service account default/default", func(ctx context.Context) (bool, error) {
		_, err := p.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// start runs one component and records it for Stop.
func (p *Plane) start(name, path string, args ...string) (*component, error) {
	c, err := startComponent(p.dir, name, path, args...)
	if err != nil {
		return nil, err
	}
	p.comps = append(p.comps, c)
	return c, nil
}

// waitFor polls cond until it holds, the component exits, or
// readyTimeout passes. Polling is what a readiness probe does: the
// component offers no event to wait on.
func waitFor(ctx context.Context, c *component, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return c.notReady(what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-c.done:
			return c.notReady(what, nil)
		case <-ctx.Done():
			return c.notReady(what, ctx.Err())
		case <-tick.C:
		}
	}
}

// httpOK reports whether GET url answers 200 with a body containing want.
func httpOK(ctx context.Context, url, want string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode == http.StatusOK && strings.Contains(string(body), want)
}

// schedulable reports whether the node is Ready with no taint that keeps
// pods off it.
func schedulable(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
