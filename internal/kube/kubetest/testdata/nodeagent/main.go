// Command nodeagent is odek's test node: a virtual-kubelet provider that
// registers one Node, runs the pods bound to it as local processes (each in
// its own mount namespace, so ConfigMap, Secret and emptyDir volumes appear
// at the paths the pod spec names) and serves their logs over the kubelet
// API, so the API server's log proxy (kubectl logs, client-go GetLogs,
// follow included) works as against a real kubelet.
//
// It is test infrastructure, like fakellm: it has no isolation beyond the
// mount namespace and runs every container as the user it runs as.
//
// Usage:
//
//	nodeagent --kubeconfig FILE --tls-cert FILE --tls-key FILE --root DIR \
//	    [--node-name NAME] [--image NAME=PATH]... [--image-map FILE] [--apiserver HOST:PORT]
//
// "nodeagent launch PLAN" is the agent's own child: it enters the pod's
// mounts and executes the container's command (see launch.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// imageFlag maps image references to host executables (--image NAME=PATH).
type imageFlag map[string]string

func (f imageFlag) String() string { return fmt.Sprint(map[string]string(f)) }

func (f imageFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("--image wants NAME=PATH, got %q", v)
	}
	f[name] = path
	return nil
}

// options are the agent's flags.
type options struct {
	kubeconfig string
	nodeName   string
	listen     string
	tlsCert    string
	tlsKey     string
	root       string
	apiserver  string
	images     imageFlag
	imageMap   string
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "launch" {
		launch(os.Args[2]) // never returns
	}
	log.SetPrefix("nodeagent: ")
	opts := options{images: imageFlag{}}
	flag.StringVar(&opts.kubeconfig, "kubeconfig", "", "kubeconfig of a user allowed to manage nodes, leases, pods and their status")
	flag.StringVar(&opts.nodeName, "node-name", "odek-test-node", "the Node's name")
	flag.StringVar(&opts.listen, "listen", "127.0.0.1:0", "address of the kubelet API (logs); port 0 picks one")
	flag.StringVar(&opts.tlsCert, "tls-cert", "", "kubelet API serving certificate (PEM)")
	flag.StringVar(&opts.tlsKey, "tls-key", "", "kubelet API serving key (PEM)")
	flag.StringVar(&opts.root, "root", "", "directory for pod state: volumes, logs, launch plans")
	flag.StringVar(&opts.apiserver, "apiserver", "", "HOST:PORT given to containers as KUBERNETES_SERVICE_HOST/PORT")
	flag.Var(opts.images, "image", "NAME=PATH: run PATH for containers of image NAME (repeatable)")
	flag.StringVar(&opts.imageMap, "image-map", "", "file of NAME=PATH lines like --image, read at each pod's start")
	flag.Parse()
	if opts.kubeconfig == "" || opts.tlsCert == "" || opts.tlsKey == "" || opts.root == "" {
		log.Fatal("--kubeconfig, --tls-cert, --tls-key and --root are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, opts); err != nil {
		log.Fatal(err)
	}
}
