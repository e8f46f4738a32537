package kube

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// Where the child finds what the helper mounts in its pod.
const (
	containerName = "odek"
	taskDir       = "/odek/task"
	taskKey       = "task.json"
	keyDir        = "/odek/key"
	keyKey        = "api-key"
	artifactDir   = "/odek/artifacts"
	workspaceDir  = "/workspace"
)

// Labels odek puts on each Job and its pod (docs/SCALE.md).
const (
	labelTask      = "odek.dev/task"
	labelParentRun = "odek.dev/parent-run"
	labelSession   = "odek.dev/session"
	annotationGoal = "odek.dev/goal-sha256"
)

// Seconds added to the child's timeout for the Job's
// activeDeadlineSeconds: the parent stops the child (and the helper
// deletes the Job) at its timeout and its kill margin; the Job's own
// deadline only backs that up when the helper is gone.
const deadlineMarginSeconds = 30

// terminationGraceSeconds is the child's time between SIGTERM and SIGKILL
// when its Job is deleted; a local child gets 3 s.
const terminationGraceSeconds = 5

// childSpec is one child's Job and the objects it owns.
type childSpec struct {
	Name      string // of the Job, the ConfigMap and the Secret alike
	Namespace string
	Task      []byte // the task file as the pod reads it
	Key       string // "" = no Secret
	Args      []string
	Env       []corev1.EnvVar
	Labels    map[string]string
	Goal      string
	Timeout   int
	S         *wire.KubeSettings
}

// jobName is the Job's name for a task id ("task-<16 hex>").
func jobName(taskID string) string { return "odek-" + taskID }

// labelsFor are the config's labels, then odek's own (which win): the task,
// the parent's run and session where they are valid label values (the
// annotations carry them whole).
func labelsFor(s *wire.KubeSettings, task *wire.Task) map[string]string {
	l := map[string]string{}
	for k, v := range s.Labels {
		l[k] = v
	}
	l["app.kubernetes.io/name"] = "odek"
	l["app.kubernetes.io/component"] = "subagent"
	l[labelTask] = task.TaskID
	for k, v := range map[string]string{labelParentRun: task.ParentRunID, labelSession: task.ParentSession} {
		if v != "" && len(validation.IsValidLabelValue(v)) == 0 {
			l[k] = v
		}
	}
	return l
}

// job is the child's Job: one pod, never retried, never restarted, its
// deadline the child's timeout and a margin, removed by the cluster after
// ttl_seconds_after_finished.
func (c *childSpec) job() *batchv1.Job {
	zero := int32(0)
	deadline := int64(c.Timeout + deadlineMarginSeconds)
	grace := int64(terminationGraceSeconds)
	ttl := int32(c.S.TTLSecondsAfterFinished)
	annotations := map[string]string{annotationGoal: wire.GoalHash(c.Goal)}
	meta := metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels, Annotations: annotations}
	return &batchv1.Job{
		ObjectMeta: meta,
		Spec: batchv1.JobSpec{
			BackoffLimit:            &zero,
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: c.Labels, Annotations: annotations},
				Spec:       c.pod(grace),
			},
		},
	}
}

func (c *childSpec) pod(grace int64) corev1.PodSpec {
	yes, no := true, false
	automount := c.S.ServiceAccount != ""
	ps := corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		ServiceAccountName:            c.S.ServiceAccount,
		AutomountServiceAccountToken:  &automount,
		EnableServiceLinks:            &no,
		TerminationGracePeriodSeconds: &grace,
		SecurityContext:               &corev1.PodSecurityContext{RunAsNonRoot: &yes},
		Containers:                    []corev1.Container{c.container()},
		Volumes:                       c.volumes(),
	}
	return ps
}

func (c *childSpec) container() corev1.Container {
	no := false
	requests, _ := resourceList("requests", c.S.Requests)
	limits, _ := resourceList("limits", c.S.Limits)
	ct := corev1.Container{
		Name:            containerName,
		Image:           c.S.Image,
		ImagePullPolicy: corev1.PullPolicy(c.S.ImagePullPolicy),
		Command:         append([]string{"odek"}, c.Args...),
		Env:             c.Env,
		WorkingDir:      c.S.WorkingDir,
		Resources:       corev1.ResourceRequirements{Requests: requests, Limits: limits},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "task", MountPath: taskDir, ReadOnly: true},
			{Name: "artifacts", MountPath: artifactDir},
		},
	}
	if c.Key != "" {
		ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: "key", MountPath: keyDir, ReadOnly: true})
	}
	if c.S.WorkingDir == "" {
		ct.WorkingDir = workspaceDir
		ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: "workspace", MountPath: workspaceDir})
	}
	return ct
}

func (c *childSpec) volumes() []corev1.Volume {
	readOnly := int32(0o444)
	keyMode := int32(0o440)
	vs := []corev1.Volume{
		{Name: "task", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: c.Name}, DefaultMode: &readOnly,
			Items: []corev1.KeyToPath{{Key: taskKey, Path: taskKey}}}}},
		{Name: "artifacts", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if c.Key != "" {
		vs = append(vs, corev1.Volume{Name: "key", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: c.Name, DefaultMode: &keyMode, Items: []corev1.KeyToPath{{Key: keyKey, Path: keyKey}}}}})
	}
	if c.S.WorkingDir == "" {
		vs = append(vs, corev1.Volume{Name: "workspace", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	return vs
}

// owner is the reference that makes the Job own an object: foreground
// deletion of the Job waits for it (blockOwnerDeletion), and the garbage
// collector removes it with the Job.
func owner(j *batchv1.Job) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}}
}

// configMap holds the task file, owned by the Job.
func (c *childSpec) configMap(j *batchv1.Job) *corev1.ConfigMap {
	immutable := true
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels, OwnerReferences: owner(j)},
		Immutable:  &immutable,
		Data:       map[string]string{taskKey: string(c.Task)},
	}
}

// secret holds the API key, owned by the Job.
func (c *childSpec) secret(j *batchv1.Job) *corev1.Secret {
	immutable := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels, OwnerReferences: owner(j)},
		Immutable:  &immutable,
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{keyKey: []byte(c.Key)},
	}
}

// podArgs are the child's arguments: the mounted task file and key, the
// artifact frame, then the flags odek gave the helper.
func podArgs(a childArgs, withKey bool) []string {
	args := []string{"subagent", "--task", taskDir + "/" + taskKey, "--artifact-frame"}
	if withKey {
		args = append(args, "--key-file", keyDir+"/"+keyKey)
	}
	return append(args, a.Pass...)
}

// podEnv is the child's environment: not the parent's (another machine),
// only its depth and the trace context that nests its spans under the
// parent's call.
func podEnv(lookup func(string) (string, bool)) []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, name := range []string{"ODEK_SUBAGENT_DEPTH", "TRACEPARENT", "TRACESTATE", "BAGGAGE"} {
		if v, ok := lookup(name); ok && v != "" {
			env = append(env, corev1.EnvVar{Name: name, Value: v})
		}
	}
	return env
}

// taskCopy is the task file as the pod reads it: the same task, its
// artifact root the pod's emptyDir (the helper brings the artifacts back
// into the parent's root). Narrowing, budget, trust and sandbox cross
// unchanged.
func taskCopy(t *wire.Task) ([]byte, error) {
	cp := *t
	cp.ArtifactRoot = artifactDir
	return cp.Encode()
}

// maxConfigMapBytes is the most a ConfigMap holds (the API server's 1 MiB,
// less room for its metadata).
const maxConfigMapBytes = 1000 << 10
