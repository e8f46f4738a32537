package kube

import (
	"os"
	"strings"
)

// inClusterNamespace is the namespace of the pod odek runs in, from its
// service account, or "" when there is none.
func inClusterNamespace() string {
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
