package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// readSettings decodes the settings odek put in the helper's environment
// and checks what the cluster would refuse later, with the setting's name.
func readSettings(lookup func(string) (string, bool)) (*wire.KubeSettings, error) {
	raw, ok := lookup(wire.EnvKubeSettings)
	if !ok || raw == "" {
		return nil, fmt.Errorf("%s is not set: odek-kube is started by odek for subagent.runner \"kubernetes\"", wire.EnvKubeSettings)
	}
	var s wire.KubeSettings
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, fmt.Errorf("%s: %w", wire.EnvKubeSettings, err)
	}
	if strings.TrimSpace(s.Image) == "" {
		return nil, errors.New("subagent.kubernetes.image is not set: the image holding odek that children run in")
	}
	if _, err := resourceList("requests", s.Requests); err != nil {
		return nil, err
	}
	if _, err := resourceList("limits", s.Limits); err != nil {
		return nil, err
	}
	for k, v := range s.Labels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("subagent.kubernetes.labels: %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("subagent.kubernetes.labels.%s: %q: %s", k, v, strings.Join(errs, "; "))
		}
	}
	if s.ScheduleTimeoutSeconds <= 0 {
		s.ScheduleTimeoutSeconds = 120
	}
	return &s, nil
}

// resourceList parses resources.requests or resources.limits.
func resourceList(what string, m map[string]string) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := corev1.ResourceList{}
	for name, v := range m {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("subagent.kubernetes.resources.%s.%s: %q is not a quantity: %w", what, name, v, err)
		}
		out[corev1.ResourceName(name)] = q
	}
	return out, nil
}

// connect builds the client and the namespace: the kubeconfig named (with
// its context), else the in-cluster service account inside a pod, else
// KUBECONFIG or ~/.kube/config; the namespace setting wins over the
// context's.
func connect(s *wire.KubeSettings, lookup func(string) (string, bool)) (kubernetes.Interface, string, error) {
	var cfg *rest.Config
	ns := s.Namespace
	_, inCluster := lookup("KUBERNETES_SERVICE_HOST")
	if s.Kubeconfig == "" && s.Context == "" && inCluster {
		c, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", fmt.Errorf("in-cluster config: %w", err)
		}
		cfg = c
		if ns == "" {
			ns = inClusterNamespace()
		}
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = s.Kubeconfig
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: s.Context})
		c, err := cc.ClientConfig()
		if err != nil {
			return nil, "", fmt.Errorf("kubeconfig: %w", err)
		}
		cfg = c
		if ns == "" {
			ns, _, _ = cc.Namespace()
		}
	}
	if ns == "" {
		ns = "default"
	}
	cfg.UserAgent = "odek-kube"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", err
	}
	return client, ns, nil
}
