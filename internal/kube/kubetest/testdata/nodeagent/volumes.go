package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// volumeDirs materialises each of the pod's volumes as a host directory
// under dir and returns them by volume name, with whether the volume is
// always mounted read-only (ConfigMap, Secret, projected, downward API, as
// a kubelet mounts them).
func (p *provider) volumeDirs(ctx context.Context, pod *corev1.Pod, dir string) (map[string]hostVolume, error) {
	out := map[string]hostVolume{}
	for _, v := range pod.Spec.Volumes {
		vdir := filepath.Join(dir, "volumes", v.Name)
		vol := hostVolume{path: vdir, readOnly: true}
		var err error
		switch {
		case v.EmptyDir != nil:
			vol.readOnly = false
			err = os.MkdirAll(vdir, 0o777)
		case v.HostPath != nil:
			vol = hostVolume{path: v.HostPath.Path}
		case v.ConfigMap != nil:
			err = p.writeConfigMap(ctx, pod.Namespace, vdir, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.Optional, v.ConfigMap.DefaultMode)
		case v.Secret != nil:
			err = p.writeSecret(ctx, pod.Namespace, vdir, v.Secret.SecretName, v.Secret.Items, v.Secret.Optional, v.Secret.DefaultMode)
		case v.DownwardAPI != nil:
			err = writeDownward(pod, vdir, v.DownwardAPI.Items, v.DownwardAPI.DefaultMode)
		case v.Projected != nil:
			err = p.writeProjected(ctx, pod, vdir, v.Projected)
		default:
			err = fmt.Errorf("volume type not supported by the test node")
		}
		if err != nil {
			return nil, fmt.Errorf("volume %q: %w", v.Name, err)
		}
		out[v.Name] = vol
	}
	return out, nil
}

// hostVolume is a pod volume's directory on the host.
type hostVolume struct {
	path     string
	readOnly bool
}

func (p *provider) writeConfigMap(ctx context.Context, ns, dir, name string, items []corev1.KeyToPath, optional *bool, mode *int32) error {
	cm, err := p.client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return writeKeys(dir, data, items, mode)
}

func (p *provider) writeSecret(ctx context.Context, ns, dir, name string, items []corev1.KeyToPath, optional *bool, mode *int32) error {
	s, err := p.client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	return writeKeys(dir, s.Data, items, mode)
}

// writeKeys writes every key of data as a file named after it, or only the
// items' keys at the items' paths.
func writeKeys(dir string, data map[string][]byte, items []corev1.KeyToPath, mode *int32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(items) == 0 {
		for k, v := range data {
			if err := writeVolumeFile(dir, k, v, mode); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			return fmt.Errorf("key %q not found", it.Key)
		}
		m := mode
		if it.Mode != nil {
			m = it.Mode
		}
		if err := writeVolumeFile(dir, it.Path, v, m); err != nil {
			return err
		}
	}
	return nil
}

// writeVolumeFile writes data at rel under dir; rel may not leave dir.
func writeVolumeFile(dir, rel string, data []byte, mode *int32) error {
	path := filepath.Join(dir, rel)
	if !strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator)) {
		return fmt.Errorf("path %q leaves the volume", rel)
	}
	perm := os.FileMode(0o644)
	if mode != nil {
		perm = os.FileMode(*mode) & os.ModePerm
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	return os.Chmod(path, perm) // WriteFile's mode is masked by the umask
}

func writeDownward(pod *corev1.Pod, dir string, items []corev1.DownwardAPIVolumeFile, mode *int32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, it := range items {
		if it.FieldRef == nil {
			return fmt.Errorf("downward API item %q: only fieldRef is supported", it.Path)
		}
		v, err := podField(pod, it.FieldRef.FieldPath)
		if err != nil {
			return err
		}
		m := mode
		if it.Mode != nil {
			m = it.Mode
		}
		if err := writeVolumeFile(dir, it.Path, []byte(v), m); err != nil {
			return err
		}
	}
	return nil
}

// podField is the value of a downward API field path.
func podField(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP", "status.hostIP":
		return "127.0.0.1", nil
	}
	return "", fmt.Errorf("downward API field %q not supported by the test node", path)
}

func (p *provider) writeProjected(ctx context.Context, pod *corev1.Pod, dir string, v *corev1.ProjectedVolumeSource) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, src := range v.Sources {
		var err error
		switch {
		case src.ConfigMap != nil:
			err = p.writeConfigMap(ctx, pod.Namespace, dir, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional, v.DefaultMode)
		case src.Secret != nil:
			err = p.writeSecret(ctx, pod.Namespace, dir, src.Secret.Name, src.Secret.Items, src.Secret.Optional, v.DefaultMode)
		case src.DownwardAPI != nil:
			err = writeDownward(pod, dir, src.DownwardAPI.Items, v.DefaultMode)
		case src.ServiceAccountToken != nil:
			err = p.writeToken(ctx, pod, dir, src.ServiceAccountToken, v.DefaultMode)
		default:
			err = fmt.Errorf("projected source not supported by the test node")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeToken asks the API server for a token bound to the pod, as a
// kubelet does for the service account volume.
func (p *provider) writeToken(ctx context.Context, pod *corev1.Pod, dir string, src *corev1.ServiceAccountTokenProjection, mode *int32) error {
	req := &authv1.TokenRequest{Spec: authv1.TokenRequestSpec{
		ExpirationSeconds: src.ExpirationSeconds,
		BoundObjectRef:    &authv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	if src.Audience != "" {
		req.Spec.Audiences = []string{src.Audience}
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	tok, err := p.client.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("service account token: %w", err)
	}
	return writeVolumeFile(dir, src.Path, []byte(tok.Status.Token), mode)
}
