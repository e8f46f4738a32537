package main

import "os"

// ODEK_TEST_PASSWD_HOME stands in for the user database's home directory
// in scripts (sandbox_passwd_home): odek run with HOME pointing elsewhere.
func init() {
	if h := os.Getenv("ODEK_TEST_PASSWD_HOME"); h != "" {
		passwdHome = func() string { return h }
	}
}
