// Package kubetest starts a real Kubernetes control plane for tests: Debian's
// etcd, kube-apiserver, kube-controller-manager (Job, garbage collector,
// TTL-after-finished, service account, namespace, root CA publisher, pod
// GC controllers) and kube-scheduler built from k8s.io/kubernetes
// (testdata/plane), and one test node (testdata/nodeagent, a
// virtual-kubelet provider) that runs pods as local processes and serves
// their logs through the API server. Everything listens on 127.0.0.1 on
// ports picked at start; everything stops, leaving no process behind, when
// the plane does.
//
// It is for tests only: no package's non-test code may import it.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// nodeName is the test node's name.
const nodeName = "odek-test-node"

// Options configure a plane.
type Options struct {
	// Images maps container images to the host executables the node runs
	// for them ("odek:test" → bin/odek). MapImage adds more later.
	Images map[string]string
}

// Plane is a running control plane and its node.
type Plane struct {
	// Kubeconfig is a kubeconfig file for a cluster admin (group
	// system:masters, client certificate), its current context the plane.
	Kubeconfig string
	// Config is the same admin's client configuration.
	Config *rest.Config
	// Client is a clientset for Config.
	Client kubernetes.Interface
	// NodeName is the one node's name; pods scheduled there run.
	NodeName string
	// StartupTime is how long Start took, from the first process started
	// to the node Ready and the default service account there.
	StartupTime time.Duration

	dir      string
	pki      *pki
	imageMap string
	comps    []*component
	stopOnce sync.Once
	mu       sync.Mutex
}

// Start starts a plane for one test and stops it when the test ends. It
// skips the test in -short mode and when ODEK_SKIP_KUBE=1, saying so, and
// fails it when a program is missing or the plane does not come up.
func Start(t testing.TB, opts Options) *Plane {
	t.Helper()
	skipUnlessEnabled(t)
	p, err := StartPlane(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

var shared struct {
	once  sync.Once
	opts  Options
	plane *Plane
	err   error
}

// Main runs a test binary's tests with one plane that they share: the
// first Shared call starts it, Main stops it after the tests. Use it in
// TestMain: os.Exit(kubetest.Main(m, opts)).
func Main(m *testing.M, opts Options) int {
	shared.opts = opts
	code := m.Run()
	if shared.plane != nil {
		shared.plane.Stop()
	}
	return code
}

// Shared returns the test binary's shared plane (see Main), starting it
// on the first call; it skips and fails as Start does.
func Shared(t testing.TB) *Plane {
	t.Helper()
	skipUnlessEnabled(t)
	shared.once.Do(func() {
		shared.plane, shared.err = StartPlane(context.Background(), shared.opts)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.plane
}

func skipUnlessEnabled(t testing.TB) {
	t.Helper()
	if os.Getenv("ODEK_SKIP_KUBE") == "1" {
		t.Skip("kubetest: ODEK_SKIP_KUBE=1: skipping the tests against a real Kubernetes control plane")
	}
	if testing.Short() {
		t.Skip("kubetest: -short: skipping the tests against a real Kubernetes control plane (make test runs them)")
	}
}

// StartPlane starts a plane; the caller stops it with Stop. ctx bounds
// the start only.
func StartPlane(ctx context.Context, opts Options) (p *Plane, err error) {
	dir, err := os.MkdirTemp("", "odek-kube-")
	if err != nil {
		return nil, err
	}
	p = &Plane{dir: dir, NodeName: nodeName, imageMap: filepath.Join(dir, "images")}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	tl, err := findTools()
	if err != nil {
		return p, err
	}
	if err := os.WriteFile(p.imageMap, nil, 0o600); err != nil {
		return p, err
	}
	for name, path := range opts.Images {
		if err := p.MapImage(name, path); err != nil {
			return p, err
		}
	}
	if p.pki, err = newPKI(dir); err != nil {
		return p, err
	}
	began := time.Now()
	if err := p.startServers(ctx, tl); err != nil {
		return p, err
	}
	if err := p.startControllers(ctx, tl); err != nil {
		return p, err
	}
	p.StartupTime = time.Since(began)
	return p, nil
}

// MapImage makes the node run the host executable path for containers of
// image name. It applies to pods started after it.
func (p *Plane) MapImage(name, path string) error {
	if strings.ContainsAny(name, "=\n") || strings.Contains(path, "\n") {
		return fmt.Errorf("kubetest: image %q or path %q has '=' or a newline", name, path)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.imageMap, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s=%s\n", name, path)
	return err
}

// Stop stops every program of the plane, the node's pods first, and
// removes its files (ODEK_KUBE_KEEP=1 keeps them, component logs
// included, to look at after a failure). A second call does nothing.
func (p *Plane) Stop() {
	p.stopOnce.Do(func() {
		for i := len(p.comps) - 1; i >= 0; i-- {
			p.comps[i].stop(15 * time.Second)
		}
		if os.Getenv("ODEK_KUBE_KEEP") == "1" {
			return // in /tmp/odek-kube-*: a start-up error names its log
		}
		os.RemoveAll(p.dir)
	})
}

// Dir is the plane's directory: certificates, component logs
// (NAME.log), etcd's data.
func (p *Plane) Dir() string { return p.dir }

// writeKubeconfig writes an admin kubeconfig for server and loads it.
func (p *Plane) writeKubeconfig(server string) error {
	cert, err := os.ReadFile(p.pki.path(adminCert + ".crt"))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(p.pki.path(adminCert + ".key"))
	if err != nil {
		return err
	}
	p.Kubeconfig = filepath.Join(p.dir, "admin.kubeconfig")
	user := &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	if err := p.writeConfig(p.Kubeconfig, server, user, "default"); err != nil {
		return err
	}
	if p.Config, err = clientcmd.BuildConfigFromFlags("", p.Kubeconfig); err != nil {
		return err
	}
	p.Config.QPS, p.Config.Burst = 100, 200
	p.Client, err = kubernetes.NewForConfig(p.Config)
	return err
}

// ServiceAccountKubeconfig writes a kubeconfig that authenticates as the
// service account ns/name, with a token the API server issues for an
// hour, its namespace ns: what that account's RBAC allows is all it can
// do. The account must exist.
func (p *Plane) ServiceAccountKubeconfig(ctx context.Context, ns, name string) (string, error) {
	exp := int64(3600)
	tok, err := p.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("kubetest: token for service account %s/%s: %w", ns, name, err)
	}
	path := filepath.Join(p.dir, "sa-"+ns+"-"+name+".kubeconfig")
	return path, p.writeConfig(path, p.Config.Host, &clientcmdapi.AuthInfo{Token: tok.Status.Token}, ns)
}

// writeConfig writes a kubeconfig of one context: the plane, user, ns.
func (p *Plane) writeConfig(path, server string, user *clientcmdapi.AuthInfo, ns string) error {
	ca, err := os.ReadFile(p.pki.path(caCert))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["odek-test"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["user"] = user
	cfg.Contexts["odek-test"] = &clientcmdapi.Context{Cluster: "odek-test", AuthInfo: "user", Namespace: ns}
	cfg.CurrentContext = "odek-test"
	return clientcmd.WriteToFile(*cfg, path)
}
