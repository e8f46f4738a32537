package agentrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/odek-run/odek/internal/config"
	"github.com/odek-run/odek/internal/subagent"
	"github.com/odek-run/odek/internal/subagent/wire"
)

// kubeHelper is the kubernetes runner's program, found beside odek's own
// executable unless subagent.kubernetes.helper names it (operator config
// only: a project never picks what odek runs).
const kubeHelper = "odek-kube"

// subagentRunner is where this run's children run: odek itself (local), or
// a Job of the operator's cluster through odek-kube (kubernetes), which
// speaks a local child's protocol to odek. A configured helper that is not
// there is a setup error, not a failure of each child later.
func (r *Run) subagentRunner(cfg *config.Config) (subagent.Runner, error) {
	if cfg.Subagent.Runner != "kubernetes" {
		return &subagent.LocalRunner{}, nil
	}
	k := cfg.Subagent.Kubernetes
	path := k.Helper
	if path == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("subagent.runner \"kubernetes\": finding odek's executable: %w", err)
		}
		path = filepath.Join(filepath.Dir(self), kubeHelper)
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("subagent.runner is \"kubernetes\" but %s is not an executable odek-kube (install it beside odek, or set subagent.kubernetes.helper)", path)
	}
	settings, err := json.Marshal(wire.KubeSettings{
		Kubeconfig: k.Kubeconfig, Context: k.Context, Namespace: k.Namespace, Image: k.Image,
		ServiceAccount: k.ServiceAccount, ImagePullPolicy: k.ImagePullPolicy, WorkingDir: k.WorkingDir,
		Requests: k.Resources.Requests, Limits: k.Resources.Limits, TTLSecondsAfterFinished: k.TTLAfterFinished,
		ScheduleTimeoutSeconds: int(k.ScheduleTimeout.Seconds()), Labels: k.Labels,
	})
	if err != nil {
		return nil, err
	}
	return &subagent.RemoteRunner{Path: path, Env: []string{
		wire.EnvKubeSettings + "=" + string(settings), wire.EnvParentVersion + "=" + r.o.Version}}, nil
}
