package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// run registers the node, serves the kubelet API and runs pods until ctx
// ends; then it kills what it started.
func run(ctx context.Context, o options) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	p := newProvider(ctx, client, o)
	defer p.shutdown()
	n, err := nodeutil.NewNode(o.nodeName,
		func(nodeutil.ProviderConfig) (nodeutil.Provider, node.NodeProvider, error) { return p, nil, nil },
		nodeutil.WithClient(client),
		func(c *nodeutil.NodeConfig) error {
			describeNode(&c.NodeSpec, int32(port))
			c.NumWorkers = 4
			return nil
		})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: api.PodHandler(api.PodHandlerConfig{
			GetContainerLogs: p.GetContainerLogs,
			GetPods:          p.GetPods,
		}, false),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	defer srv.Close()
	if err := n.Run(ctx); err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		return fmt.Errorf("node: %w", err)
	}
	return nil
}

// describeNode fills in what the scheduler and the API server's kubelet
// client read: capacity, addresses, the kubelet port and conditions.
func describeNode(n *corev1.Node, port int32) {
	n.Labels["kubernetes.io/os"] = "linux"
	n.Labels["kubernetes.io/arch"] = runtime.GOARCH
	n.Labels["odek.dev/test-node"] = "true"
	res := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("8"),
		corev1.ResourceMemory:           resource.MustParse("32Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
	n.Status.Capacity, n.Status.Allocatable = res, res.DeepCopy()
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
		{Type: corev1.NodeHostName, Address: n.Name},
	}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		KubeletVersion:  "v1.37.2",
		OperatingSystem: "linux",
		Architecture:    runtime.GOARCH,
	}
	for i, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			n.Status.Conditions[i].Status = corev1.ConditionFalse
			n.Status.Conditions[i].Reason = "TestNode"
		}
	}
}
