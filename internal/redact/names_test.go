package redact

import "testing"

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"ODEK_API_KEY": true, "api_key": true, "ApiKey": true, "API-KEY": true, "GITHUB_TOKEN": true,
		"AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true, "PGPASSWD": true, "GOOGLE_CREDENTIALS": true,
		"MY_CREDS": true, "SSH_PRIVATE_KEY": true, "AWS_ACCESS_KEY_ID": true, "GPG_PASSPHRASE": true,
		"SESSION_COOKIE": true, "HTTP_AUTHORIZATION": true,
		"PATH": false, "HOME": false, "LOG_LEVEL": false, "WORKSPACE": false, "TOKE": false, "KEY": false, "": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
