package wire

// A remote runner (docs/SCALE.md) is a helper program the parent starts
// exactly as it starts a local child (`subagent --task FILE …`, the key on
// descriptor 3, the result on stdout, the child's exit code) and that runs
// the child elsewhere. These are what the parent adds to the helper's
// environment; none of them is secret.
const (
	// EnvKubeSettings holds the kubernetes runner's settings as JSON
	// (KubeSettings).
	EnvKubeSettings = "ODEK_KUBE_SETTINGS"
	// EnvParentVersion is the parent's odek version: the helper refuses a
	// child's result of another version.
	EnvParentVersion = "ODEK_PARENT_VERSION"
)

// KubeSettings are the operator's subagent.kubernetes.* settings as the
// parent resolved them, for the odek-kube helper.
type KubeSettings struct {
	Kubeconfig      string            `json:"kubeconfig,omitempty"`
	Context         string            `json:"context,omitempty"`
	Namespace       string            `json:"namespace,omitempty"`
	Image           string            `json:"image"`
	ServiceAccount  string            `json:"service_account,omitempty"`
	ImagePullPolicy string            `json:"image_pull_policy,omitempty"`
	WorkingDir      string            `json:"working_dir,omitempty"`
	Requests        map[string]string `json:"requests,omitempty"`
	Limits          map[string]string `json:"limits,omitempty"`
	// TTLSecondsAfterFinished is the Jobs' ttlSecondsAfterFinished.
	TTLSecondsAfterFinished int `json:"ttl_seconds_after_finished"`
	// ScheduleTimeoutSeconds bounds the wait for a pod to run.
	ScheduleTimeoutSeconds int               `json:"schedule_timeout_seconds"`
	Labels                 map[string]string `json:"labels,omitempty"`
}
