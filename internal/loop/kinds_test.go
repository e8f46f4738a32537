package loop

import "github.com/odek-run/odek/internal/msgkind"

// The openings the tests look for (msgkind owns them).
var (
	planPrefix     = msgkind.Plan.Opening()
	digestPrefix   = msgkind.Digest.Opening()
	trimmedPrefix  = msgkind.ContextTrimmed.Opening()
	survivePrefix  = msgkind.ContextSurvive.Opening()
	survivalPrefix = msgkind.SurvivalMode.Opening()
)
