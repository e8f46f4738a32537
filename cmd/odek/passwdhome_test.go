package main

import (
	"os"

	"github.com/odek-run/odek/internal/agentrun"
)

// ODEK_TEST_PASSWD_HOME stands in for the user database's home directory
// in scripts (sandbox_passwd_home): odek run with HOME pointing elsewhere.
func init() {
	if h := os.Getenv("ODEK_TEST_PASSWD_HOME"); h != "" {
		agentrun.Seams.PasswdHome = func() string { return h }
	}
}
