package kube

import (
	"os"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// scaleManifests are docs/SCALE.md's YAML blocks: the Kubernetes objects
// (each document of a block that has an apiVersion) and the other files.
func scaleManifests(t *testing.T) (objects []string, others []string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/SCALE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if !strings.HasPrefix(m[1], "apiVersion:") {
			others = append(others, m[1])
			continue
		}
		objects = append(objects, strings.Split(m[1], "\n---\n")...)
	}
	return objects, others
}

// decodeStrict decodes one manifest with the Kubernetes types: an unknown
// or misspelt field, or a value of the wrong type, fails.
func decodeStrict(doc string) (runtime.Object, error) {
	codecs := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
	obj, _, err := codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
	return obj, err
}

// TestScaleManifests: every manifest docs/SCALE.md shows is a valid
// object of its kind, and the CI files are YAML with the keys their
// engines read.
func TestScaleManifests(t *testing.T) {
	t.Parallel()
	objects, others := scaleManifests(t)
	kinds := map[string]int{}
	for _, doc := range objects {
		obj, err := decodeStrict(doc)
		if err != nil {
			t.Errorf("%v in\n%s", err, doc)
			continue
		}
		kinds[obj.GetObjectKind().GroupVersionKind().Kind]++
		if j, ok := obj.(*batchv1.Job); ok && (j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion) {
			t.Errorf("the Job of the Indexed Job example is not Indexed")
		}
	}
	for _, k := range []string{"ConfigMap", "Job", "ServiceAccount", "Role", "RoleBinding"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the manifests (%v)", k, kinds)
		}
	}
	if len(others) != 2 {
		t.Fatalf("%d CI files, want the GitHub Actions and the GitLab CI examples", len(others))
	}
	for _, doc := range others {
		var v map[string]any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Errorf("%v in\n%s", err, doc)
		}
		if !strings.Contains(doc, "--events-jsonl events.jsonl") || !strings.Contains(doc, "--output json") || !strings.Contains(doc, "report.json") {
			t.Errorf("a CI example keeps no report or events:\n%s", doc)
		}
	}
}
