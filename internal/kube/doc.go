// Package kube is the odek-kube helper: the kubernetes sub-agent runner
// (docs/SCALE.md). odek starts odek-kube exactly as it starts a local
// child (`subagent --task FILE …`, the API key on descriptor 3, the result
// on stdout, the child's exit code), and odek-kube runs the child as a Job
// of the cluster the operator configured: the task file in a ConfigMap,
// the key in a Secret (both mounted read-only and owned by the Job), the
// child's stdout read back from the pod's log.
//
// Invariants:
//   - odek itself never links this package (client-go registers every API
//     group at init): only cmd/odek-kube does, and scripts/layering.sh
//     keeps k8s.io imports here.
//   - The API key is a mounted file, never an environment variable or an
//     argument; the Secret and the ConfigMap are created after the Job,
//     owned by it, so deleting the Job (foreground) removes them.
//   - The pod's log is read under a local child's stdout caps
//     (wire.EachLine); a flood deletes the Job. The artifact frame is
//     checked fail closed (wire.FrameReader, wire.ExtractArtifacts) and the
//     refs then go through the parent's own validation.
//   - A result whose odek version is not the parent's is refused.
//   - Every way out after the Job exists (the end, a flood, a pod that never
//     runs, SIGTERM) deletes the Job with foreground propagation and waits,
//     bounded, until it is gone.
package kube
