package agentrun

import (
	"os"
	"testing"

	"github.com/odek-run/odek/internal/testbin"
)

// TestMain removes the programs the tests built (testbin).
func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }
