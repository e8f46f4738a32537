package config

import "time"

// LLM configures the model endpoint's transport. A zero timeout means none.
type LLM struct {
	// ConnectTimeout bounds dialling and the TLS handshake.
	ConnectTimeout time.Duration
	// FirstByteTimeout bounds the wait, once connected, for the first byte
	// of the response.
	FirstByteTimeout time.Duration
	// IdleTimeout bounds each silence while the response arrives.
	IdleTimeout time.Duration
	// RequestTimeout bounds one whole request, retries excluded.
	RequestTimeout time.Duration
	// ResponseFormat sends response_format for --output-schema; false for
	// endpoints that reject the field.
	ResponseFormat bool
	// WireAPI is the endpoint's API: "chat" or "responses" (llm.WireChat,
	// llm.WireResponses).
	WireAPI string
	// FallbackModels are the models an llm.Chain moves to, in order.
	FallbackModels []string
}

// LoopBreaker configures what stops a model that repeats itself
// (loop_breaker.*): a hint after HintAfter repeats (0 = none), a stop at
// StopAfter (0 = never); Exempt tools (pollers) are never counted.
type LoopBreaker struct {
	HintAfter int
	StopAfter int
	Exempt    []string
}

// Sandbox is how the kernel confines the commands odek runs (sandbox.*).
type Sandbox struct {
	Mode     string // auto, workspace-write, read-only, off
	Network  string // off, on
	Required bool   // no Landlock is a setup error even in auto
	// Writable, Readable and Protected are paths as written ("~/" is the
	// home directory; cmd/odek expands them).
	Writable, Readable, Protected []string
}

// Planning configures the built-in plan tool.
type Planning struct {
	Enabled        bool
	MaxSteps       int // 1..50, default 12
	MaxRenderChars int // 200..8000, default 2000
}

// Subagent configures delegate_tasks and `odek subagent` (docs/SUBAGENTS.md); the
// process-wide concurrency is Config.MaxConcurrency.
type Subagent struct {
	MaxIterations  int           // default 15, at most 100
	Timeout        time.Duration // default and cap 30m
	MaxDepth       int           // default 2, at most 8
	AnnounceBudget bool          // default true
	BudgetInherit  string        // "operator" (default) or "share"
	DefaultProfile string        // default "default"; "none" disables profiles
	// Runner is where children run: "local" (default), or "kubernetes"
	// (each child a Job, started through the odek-kube helper).
	Runner     string
	Kubernetes Kubernetes
}

// Kubernetes is subagent.kubernetes.*, the kubernetes runner's cluster and
// pod settings (docs/SCALE.md): the operator's alone, since they name a
// cluster and what runs there.
type Kubernetes struct {
	Helper           string // the odek-kube executable; "" = beside odek's own
	Kubeconfig       string // "" = in-cluster, else KUBECONFIG / ~/.kube/config
	Context          string
	Namespace        string // "" = the kubeconfig context's, else "default"
	Image            string
	ServiceAccount   string // "" = the namespace's default, with no token mounted
	ImagePullPolicy  string // Always, IfNotPresent, Never; "" = the cluster's default
	WorkingDir       string // the child's directory in the image; "" = an empty /workspace
	Resources        KubeResources
	TTLAfterFinished int           // ttlSecondsAfterFinished of each Job
	ScheduleTimeout  time.Duration // longest wait for a pod to start running
	Labels           map[string]string
}

// KubeResources are a child pod's resource requests and limits, as
// Kubernetes quantities by resource name ({"cpu": "500m", "memory": "1Gi"}).
type KubeResources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

// Profile is one entry of the global profiles map: a named sub-agent policy.
type Profile struct {
	// MaxRisk is the highest risk class the profile allows.
	MaxRisk string `json:"max_risk,omitempty"`
	// Allowlist holds exact invocations allowed whatever their class.
	Allowlist []string `json:"allowlist,omitempty"`
	// Tools are the tool names the profile offers (empty = all).
	Tools []string `json:"tools,omitempty"`
}

// Dangerous is the risk policy of the built-in workspace tools (docs/TOOLS.md).
// After Load, Classes holds a decision for every class in RiskClasses.
type Dangerous struct {
	// Action answers a prompt nobody configured more precisely: allow,
	// deny or prompt (default prompt).
	Action string `json:"action,omitempty"`
	// NonInteractive replaces prompts without a terminal: allow, deny or
	// read_only (default deny).
	NonInteractive string `json:"non_interactive,omitempty"`
	// Classes maps a risk class to allow, deny or prompt.
	Classes map[string]string `json:"classes,omitempty"`
	// Allowlist and Denylist hold exact invocations.
	Allowlist []string `json:"allowlist,omitempty"`
	Denylist  []string `json:"denylist,omitempty"`
}

// RiskClasses are the risk classes in the order of docs/TOOLS.md, with the
// decision each gets when the global file does not set it.
var RiskClasses = []struct{ Name, Default string }{
	{"safe", "allow"}, {"local_write", "allow"}, {"system_write", "prompt"},
	{"destructive", "deny"}, {"network_egress", "prompt"}, {"code_execution", "prompt"},
	{"install", "prompt"}, {"persistence", "prompt"}, {"unread_exec", "prompt"},
	{"unknown", "deny"}, {"blocked", "deny"},
}

// strictness orders class decisions for the project's tighten rule.
var strictness = map[string]int{"allow": 0, "prompt": 1, "deny": 2}

// Telemetry is the operator's tracing settings (telemetry.*,
// docs/TELEMETRY.md); the OTEL_* variables configure the rest.
type Telemetry struct {
	Enabled          bool
	Endpoint         string
	CaptureContent   bool
	ShutdownTimeout  time.Duration // default 2s, at most 60s
	ModelTraceparent string        // loopback (default), always, never
}
