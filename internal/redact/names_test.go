package redact

import "testing"

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"ODEK_API_KEY": true, "api_key": true, "ApiKey": true, "API-KEY": true, "GITHUB_TOKEN": true,
		"AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true, "PGPASSWD": true, "GOOGLE_CREDENTIALS": true,
		"MY_CREDS": true, "SSH_PRIVATE_KEY": true, "AWS_ACCESS_KEY_ID": true, "GPG_PASSPHRASE": true,
		"SESSION_COOKIE": true, "HTTP_AUTHORIZATION": true,
		"SENTRY_DSN": true, "NPM_CONFIG__AUTH": true, "npm_config__auth": true, "DOCKER_AUTH_CONFIG": true,
		"CI_JOB_JWT": true, "CI_JOB_JWT_V2": true, "SLACK_WEBHOOK": true, "SLACK_WEBHOOK_URL": true, "auth": true,
		"GIT_AUTHOR_NAME": false, "OAUTH_CLIENT_ID": false, "AUTHOR": false, "NPM_CONFIG_CACHE": false,
		"PATH": false, "HOME": false, "LOG_LEVEL": false, "WORKSPACE": false, "TOKE": false, "KEY": false, "": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
