package ccimport

import (
	"errors"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/importer"
)

// TestCheckSettings: CheckSettingsFile says why Claude Code 2.1.328 would
// ignore a whole settings file, first problem first, or nil; the import
// skips exactly those files (the same function), so a file whose other key
// has the wrong type ("model": 5, CLI) no longer has its rules imported
// while Claude Code applies none of them.
func TestCheckSettings(t *testing.T) {
	for _, tt := range []struct {
		name, src, want string // want "" when Claude Code loads the file
	}{
		{"empty object", `{}`, ""},
		{"byte order mark", "\ufeff{\"model\": \"opus\"}", ""},
		{"repeated key, last wins", `{"model": 5, "model": "opus"}`, ""},
		{"unknown keys", `{"$schema": "x", "someFutureKey": [1, {}], "env": {"A": "b"}}`, ""},
		{"every known type", `{"model": "m", "includeCoAuthoredBy": true, "cleanupPeriodDays": 1e1, "enabledMcpjsonServers": ["a"], "autoUpdatesChannel": "stable", "statusLine": {"type": "command", "command": "x"}}`, ""},
		{"hooks of every type", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "timeout": 5}, {"type": "agent", "prompt": "p"}]}], "Odd": []}}`, ""},
		{"not JSON", `{"model": "x",}`, "not JSON"},
		{"not an object", `[1]`, "settings must be an object, got list"},
		{"model a number", `{"model": 5}`, "model must be a string, got number 5"},
		{"first problem first", `{"verbose": "yes", "model": 5}`, `verbose must be true or false, got string "yes"`},
		{"a list of strings", `{"availableModels": ["a", 1]}`, "availableModels[1] must be a string, got number 1"},
		{"one of", `{"defaultShell": "zsh"}`, `defaultShell must be one of bash, powershell, got string "zsh"`},
		{"days zero", `{"cleanupPeriodDays": 0}`, "cleanupPeriodDays must be a whole number of at least 1, got number 0"},
		{"status line", `{"statusLine": {"type": "static"}}`, `statusLine.type must be "command", got string "static"`},
		// CLI (TestSettingsSchema "hooks: an empty list", "hooks: a
		// string", "hooks: a guard event null"): the loader deletes a
		// "hooks" that is not an object, and a null event, and the file
		// loads; but a list holding an object ("hooks: a list with an
		// object").
		{"hooks a list", `{"hooks": []}`, ""},
		{"hooks a string", `{"hooks": "x"}`, ""},
		{"hooks a list of scalars and lists", `{"hooks": [1, "x", [null, [2]]]}`, ""},
		{"hooks a list with an object", `{"hooks": [{}]}`, `hooks must be an object of events ({"PreToolUse": [matcher groups], ...}), got list`},
		{"hooks a list with a matcher group in a list", `{"hooks": [[{"matcher": "Bash", "hooks": [1]}]]}`, `hooks must be an object of events ({"PreToolUse": [matcher groups], ...}), got list`},
		{"hooks a list with a guard event in a list", `{"hooks": [[{"PreToolUse": 1}]]}`, `hooks must be an object of events ({"PreToolUse": [matcher groups], ...}), got list`},
		{"an event null", `{"hooks": {"PreToolUse": null}}`, ""},
		{"an event a string", `{"hooks": {"PreToolUse": "x"}}`, `hooks.PreToolUse must be a list of matcher groups, got string "x"`},
		// Hooks outside "hooks" (CLI: TestSettingsSchema "hooks: ..."): the
		// loader ignores the file for a PreToolUse or PermissionRequest key
		// other than null or [], or a matcher group, anywhere but where
		// Claude Code runs them, to four levels below a top-level key.
		{"a guard event at the top level", `{"model": "m", "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}]}`,
			`PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"a guard event at the top level a number", `{"PermissionRequest": 5}`,
			`PermissionRequest must be an event of "hooks" (hooks.PermissionRequest; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got number 5`},
		{"guard events at the top level empty", `{"PreToolUse": [], "PermissionRequest": null}`, ""},
		{"a guard event under a key", `{"worktree": {"PreToolUse": {}}}`,
			`worktree.PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got object`},
		{"a guard event four levels down", `{"x": {"a": [{"b": {"PermissionRequest": [1]}}]}}`,
			`x.a[0].b.PermissionRequest must be an event of "hooks" (hooks.PermissionRequest; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"a guard event five levels down", `{"x": {"a": [{"b": {"c": {"PermissionRequest": [1]}}}]}}`, ""},
		{"a guard event in the keys not scanned", `{"env": {"PreToolUse": "x"}, "pluginConfigs": {"p": {"options": {"PreToolUse": ["x"]}}}, "x": {"mcpServers": {"PreToolUse": [1]}}}`, ""},
		{"a guard event in the keys deleted first", `{"isolation": {"PreToolUse": [1]}, "deniedModels": {"PermissionRequest": 1}, "additionalMarketplaces": {"m": {"PreToolUse": [1]}}}`, ""},
		{"a guard event in the alias deleted", `{"strictKnownMarketplaces": [], "allowedMarketplaces": [{"source": "s", "PreToolUse": [1]}]}`, ""},
		{"a guard event in the alias kept", `{"allowedMarketplaces": [{"source": "s", "PreToolUse": [1]}]}`,
			`allowedMarketplaces[0].PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"a guard event in a permission rule dropped", `{"permissions": {"deny": ["Bash", {"PreToolUse": [1]}]}}`, ""},
		{"a guard event in permissions", `{"permissions": {"deny": ["Bash"], "x": [{"PreToolUse": [1]}]}}`,
			`permissions.x[0].PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"another event at the top level", `{"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "c"}]}], "x": {"Stop": {"matcher": "", "hooks": [1]}}}`, ""},
		{"a matcher group outside hooks", `{"myHooks": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}]}`,
			`myHooks[0] must be in the list of a hook event (hooks.EVENT: [...]; Claude Code ignores the whole file that has a matcher group anywhere else, as it may hold PreToolUse or PermissionRequest hooks: move it there or remove it), got a matcher group (an object with a "hooks" list)`},
		{"a matcher group of one handler", `{"sandbox": {"x": {"hooks": {"type": "command"}}}}`,
			`sandbox.x must be in the list of a hook event (hooks.EVENT: [...]; Claude Code ignores the whole file that has a matcher group anywhere else, as it may hold PreToolUse or PermissionRequest hooks: move it there or remove it), got a matcher group (an object with a "hooks" list)`},
		{"not a matcher group", `{"x": {"hooks": []}, "y": {"hooks": {"a": 1}}, "z": {"Stop": 1, "hooks": [1]}}`, ""},
		{"a handler not looked into", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "y": {"PreToolUse": [1]}}]}]}}`, ""},
		{"a handler without a type looked into", `{"hooks": {"Stop": [{"hooks": [{"y": {"PreToolUse": [1]}}]}]}}`,
			`hooks.Stop[0].hooks[0].y.PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"hooks a single matcher group", `{"hooks": {"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}}`,
			`hooks must be an object of events ({"PreToolUse": [matcher groups], ...}), got a single matcher group`},
		{"an unknown event holding a matcher group", `{"hooks": {"Odd": {"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}}}`,
			`hooks.Odd must be in the list of a hook event (hooks.EVENT: [...]; Claude Code ignores the whole file that has a matcher group anywhere else, as it may hold PreToolUse or PermissionRequest hooks: move it there or remove it), got a matcher group (an object with a "hooks" list)`},
		{"an unknown event's list of matcher groups", `{"hooks": {"preToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "c"}]}]}}`, ""},
		{"an unknown event's list holding a guard event", `{"hooks": {"Odd": [{"PermissionRequest": [1]}]}}`,
			`hooks.Odd[0].PermissionRequest must be an event of "hooks" (hooks.PermissionRequest; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"another event's matcher group holding a guard event", `{"hooks": {"Stop": [{"hooks": [], "PreToolUse": [1]}]}}`,
			`hooks.Stop[0].PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"another event holding a guard event", `{"hooks": {"Stop": {"PreToolUse": [1]}}}`,
			`hooks.Stop.PreToolUse must be an event of "hooks" (hooks.PreToolUse; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got list`},
		{"a guard event's handler holding a guard event", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "c", "PermissionRequest": {}}]}]}}`,
			`hooks.PreToolUse[0].hooks[0].PermissionRequest must be an event of "hooks" (hooks.PermissionRequest; Claude Code ignores the whole file that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them), got object`},
		{"an http handler without url", `{"hooks": {"PermissionRequest": [{"hooks": [{"type": "http"}]}]}}`, `hooks.PermissionRequest[0].hooks[0].url must be a string (a http handler needs one), got nothing (no "url" key)`},
		// CLI: another event's malformed entry is dropped and the file
		// loads; a guard event's shell, onFailure or url that the schema
		// refuses, fallbackModel a string and sandbox a string make it
		// ignore the file.
		{"another event malformed", `{"hooks": {"Stop": "x", "Notification": [{"hooks": [{"type": "script"}]}]}}`, ""},
		{"a shell", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "c", "shell": "zsh"}]}]}}`, `hooks.PreToolUse[0].hooks[0].shell must be one of bash, powershell, got string "zsh"`},
		{"onFailure", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "c", "onFailure": "Block"}]}]}}`, `hooks.PreToolUse[0].hooks[0].onFailure must be one of continue, block, got string "Block"`},
		{"a url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "not a url"}]}]}}`, `hooks.PreToolUse[0].hooks[0].url must be an absolute URL, got string "not a url"`},
		{"a good url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hooks/claude-code", "onFailure": "block", "shell": "bash"}]}]}}`, ""},
		{"fallbackModel", `{"fallbackModel": "opus"}`, `fallbackModel must be a list of strings, got string "opus"`},
		{"sandbox", `{"sandbox": "yes"}`, `sandbox must be an object, got string "yes"`},
		{"permissions", `{"permissions": {"defaultMode": "yolo"}}`, `permissions.defaultMode must be one of manual, acceptEdits, auto, bypassPermissions, default, dontAsk, plan, got "yolo"`},
		// Every kind of key settingsKeys checks, a good value and a bad
		// one (CLI for a sample of each: internal/claudecodetest
		// TestSettingsSchema).
		{"a string", `{"$schema": "x", "attributionProject": "p", "timeFormat": "%H:%M"}`, ""},
		{"a string a number", `{"$schema": 5}`, `["$schema"] must be a string, got number 5`},
		{"a boolean", `{"disableAgentView": true, "voiceEnabled": false}`, ""},
		{"a boolean a string", `{"disableAgentView": "yes"}`, `disableAgentView must be true or false, got string "yes"`},
		{"a null the loader deletes", `{"enableAllProjectMcpServers": null, "disableAutoMode": null, "feedbackDrafts": null, "strictKnownMarketplaces": null}`, ""},
		{"a null it does not", `{"prefersReducedMotion": null}`, "prefersReducedMotion must be true or false, got null"},
		{"a whole number of at least 0", `{"desktopSessionCleanupPeriodDays": 0, "skillListingMaxDescChars": 9007199254740991}`, ""},
		{"a whole number below 0", `{"desktopSessionCleanupPeriodDays": -1}`, "desktopSessionCleanupPeriodDays must be a whole number of at least 0, got number -1"},
		{"a whole number past the safe ones", `{"cleanupPeriodDays": 9007199254740992}`, "cleanupPeriodDays must be a whole number of at least 1, got number 9007199254740992"},
		{"a number in its bounds", `{"skillListingBudgetFraction": 1, "feedbackSurveyRate": 0}`, ""},
		{"a number at its open end", `{"skillListingBudgetFraction": 0}`, "skillListingBudgetFraction must be a number greater than 0 and at most 1, got number 0"},
		{"a number above its most", `{"feedbackSurveyRate": 1.5}`, "feedbackSurveyRate must be a number from 0 to 1, got number 1.5"},
		{"a number below its least", `{"feedbackSurveyRate": -0.1}`, "feedbackSurveyRate must be a number from 0 to 1, got number -0.1"},
		{"an enum", `{"tui": "fullscreen", "disableAutoMode": "disable", "defaultView": "chat"}`, ""},
		{"an enum another string", `{"tui": "classic"}`, `tui must be one of default, fullscreen, got string "classic"`},
		{"a list of strings", `{"pluginSuggestionMarketplaces": ["a"], "forceLoginOrgUUID": ["u"]}`, ""},
		{"a list of strings with a number", `{"pluginSuggestionMarketplaces": ["a", 1]}`, "pluginSuggestionMarketplaces[1] must be a string, got number 1"},
		{"one server name for the list", `{"enabledMcpjsonServers": "my_server-1", "disabledMcpjsonServers": ["b"]}`, ""},
		{"another string for the list", `{"disabledMcpjsonServers": "a b"}`, `disabledMcpjsonServers must be a list of strings (or one server name of letters, digits, "_" and "-"), got string "a b"`},
		{"a string or a list", `{"forceLoginOrgUUID": "u"}`, ""},
		{"a string or a list a number", `{"forceLoginOrgUUID": 5}`, "forceLoginOrgUUID must be a string or a list of strings, got number 5"},
		{"objects", `{"voice": {"mode": "tap", "other": 1}, "worktree": {"baseRef": "head", "sparsePaths": ["a"]}, "spinnerVerbs": {"mode": "append", "verbs": []}, "quietHours": {"start": "7:30", "end": "23:59"}, "remote": {"defaultEnvironmentId": "e"}, "remoteTools": {}, "breakReminder": {"intervalMinutes": 5}, "autoMode": {"allow": ["$defaults"], "classifyAllShell": true}}`, ""},
		{"an object a string", `{"voice": "on"}`, `voice must be an object, got string "on"`},
		{"an object's enum", `{"worktree": {"baseRef": "tip"}}`, `worktree.baseRef must be one of fresh, head, got string "tip"`},
		{"an object's whole number", `{"breakReminder": {"intervalMinutes": 0}}`, "breakReminder.intervalMinutes must be a whole number of at least 1, got number 0"},
		{"an object's list", `{"autoMode": {"allow": "x"}}`, `autoMode.allow must be a list of strings, got string "x"`},
		{"an object without a required key", `{"spinnerVerbs": {"mode": "append"}}`, `spinnerVerbs.verbs must be a list of strings, got nothing (no "verbs" key)`},
		{"a time not a time", `{"quietHours": {"start": "25:00"}}`, `quietHours.start must be a 24-hour time "HH:MM", got string "25:00"`},
		{"a command object without its command", `{"fileSuggestion": {"type": "command"}}`, `fileSuggestion.command must be a string, got nothing (no "command" key)`},
		{"a status line's padding", `{"statusLine": {"type": "command", "command": "x", "padding": "1"}}`, `statusLine.padding must be a number, got string "1"`},
		{"attribution", `{"attribution": true, "includeCoAuthoredBy": false}`, ""},
		{"attribution an object", `{"attribution": {"commit": "", "pr": "", "sessionUrl": false}}`, ""},
		{"attribution a string", `{"attribution": "yes"}`, `attribution must be true, false or an object, got string "yes"`},
		{"attribution's commit", `{"attribution": {"commit": 1}}`, "attribution.commit must be a string, got number 1"},
		{"records", `{"modelOverrides": {"a": "b"}, "skillOverrides": {"s": "off"}, "enabledPlugins": {"p@m": true, "q@m": ["x"]}, "pluginConfigs": {"p@m": {"mcpServers": {"s": {"k": 1}}, "options": {"a": ["x"], "b": true}}}}`, ""},
		{"a record's value", `{"modelOverrides": {"a": 1}}`, "modelOverrides.a must be a string, got number 1"},
		{"a record's enum", `{"skillOverrides": {"my skill": "maybe"}}`, `skillOverrides["my skill"] must be one of on, name-only, user-invocable-only, off, got string "maybe"`},
		{"a plugin neither", `{"enabledPlugins": {"p@m": "yes"}}`, `enabledPlugins["p@m"] must be true, false or a list of strings, got string "yes"`},
		{"a record a list", `{"pluginConfigs": []}`, "pluginConfigs must be an object of plugin configurations, got list"},
		{"a plugin's option", `{"pluginConfigs": {"p": {"options": {"k": null}}}}`, "pluginConfigs.p.options.k must be a string, number, true or false, or a list of strings, got null"},
		{"lists of objects", `{"sshConfigs": [{"id": "a", "name": "n", "sshHost": "h", "sshPort": 22}], "allowedChannelPlugins": [{"marketplace": "m", "plugin": "p"}], "blockedMarketplaces": [{"source": "github", "repo": "a/b"}]}`, ""},
		{"a list of objects without a required key", `{"sshConfigs": [{"id": "a", "sshHost": "h"}]}`, `sshConfigs[0].name must be a string, got nothing (no "name" key)`},
		{"a port not whole", `{"sshConfigs": [{"id": "a", "name": "n", "sshHost": "h", "sshPort": 22.5}]}`, "sshConfigs[0].sshPort must be a whole number, got number 22.5"},
		{"a list of objects with a string", `{"allowedChannelPlugins": ["x"]}`, `allowedChannelPlugins[0] must be an object, got string "x"`},
		{"a marketplace list a string", `{"strictKnownMarketplaces": "x"}`, `strictKnownMarketplaces must be a list of marketplace sources, got string "x"`},
		{"a marketplace source without its source", `{"blockedMarketplaces": [{"repo": "a/b"}]}`, `blockedMarketplaces[0].source must be a string, got nothing (no "source" key)`},
		{"the alias", `{"allowedMarketplaces": "x"}`, `allowedMarketplaces must be a list of marketplace sources, got string "x"`},
		{"the alias beside the list", `{"allowedMarketplaces": "x", "strictKnownMarketplaces": []}`, ""},
		{"the alias beside a null list", `{"strictKnownMarketplaces": null, "allowedMarketplaces": "x"}`, `allowedMarketplaces must be a list of marketplace sources, got string "x"`},
		{"sandbox", `{"sandbox": {"enabled": false, "network": {"allowedDomains": ["a"], "allowMachLookup": ["com.example.*", "*"], "httpProxyPort": 8080, "tlsTerminate": {"caCertPath": "c"}}, "filesystem": {"denyRead": ["/x"], "disabled": false}, "credentials": {}, "windows": {"backend": "mxc"}, "ignoreViolations": {"*": ["/tmp"]}, "ripgrep": {"command": "rg"}, "bwrapPath": 5, "unknown": 1}}`, ""},
		{"sandbox enabled a string", `{"sandbox": {"enabled": "yes"}}`, `sandbox.enabled must be true or false, got string "yes"`},
		{"sandbox's reads a string", `{"sandbox": {"filesystem": {"denyRead": "/x"}}}`, `sandbox.filesystem.denyRead must be a list of strings, got string "/x"`},
		{"a mach service's wildcard", `{"sandbox": {"network": {"allowMachLookup": ["*x"]}}}`, `sandbox.network.allowMachLookup[0] must be a string with no "*" but one at its end, got string "*x"`},
		{"an empty certificate path", `{"sandbox": {"network": {"tlsTerminate": {"caCertPath": ""}}}}`, `sandbox.network.tlsTerminate.caCertPath must be a string, not empty, got string ""`},
		{"ripgrep without its command", `{"sandbox": {"ripgrep": {}}}`, `sandbox.ripgrep.command must be a string, got nothing (no "command" key)`},
		{"sandbox credentials a list", `{"sandbox": {"credentials": []}}`, "sandbox.credentials must be an object, got list"},
		// Left out (CLI: the file loads): a schema that falls back, keys
		// the loader deletes or repairs, one that takes anything.
		{"left out", `{"effortLevel": "ultra", "teammateMode": 5, "deniedModels": "x", "modelPicker": "x", "extraKnownMarketplaces": 1, "sshHostCommands": 5, "xaaIdp": 5}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSettingsFile("s.json", []byte(tt.src))
			got := ""
			var se *SchemaError
			var ie *importer.Error
			switch {
			case errors.As(err, &se):
				got = se.Error()
			case errors.As(err, &ie):
				got = "not JSON"
			case err != nil:
				t.Fatalf("%v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// Every key settingsKeys checks, by kind: a bad value of the kind
	// makes the file one Claude Code ignores, at the key (the lists are
	// the schema's, read from the binary: settingsKeys).
	seen := map[string]bool{}
	for _, kind := range []struct {
		bad, want string // want "" when it differs by key (an enum's values, an object's name)
		keys      []string
	}{
		{`5`, "a string", []string{"$schema", "apiKeyHelper", "proxyAuthHelper", "awsCredentialExport", "awsAuthRefresh", "gcpAuthRefresh",
			"processWrapper", "attributionProject", "model", "prUrlTemplate", "otelHeadersHelper", "outputStyle", "language", "advisorModel",
			"agent", "minimumVersion", "requiredMinimumVersion", "requiredMaximumVersion", "plansDirectory", "timeFormat", "timeZone",
			"autoMemoryDirectory", "claudeMd", "pluginTrustMessage"}},
		{`"yes"`, "true or false", []string{"respectGitignore", "syncClaudeAiSkills", "syncClaudeAiPlugins", "wslInheritsWindowsSettings",
			"includeCoAuthoredBy", "includeGitInstructions", "enforceAvailableModels", "enableAllProjectMcpServers", "disableClaudeAiConnectors",
			"disableBundledSkills", "disableAllHooks", "disableReplyCheck", "disableAgentView", "disableRemoteControl", "disableWorkflows",
			"disableArtifact", "enableArtifact", "enableWorkflows", "workflowKeywordTriggerEnabled", "disableSkillShellExecution",
			"disableWindowsBashCommandSplit", "bashEditDiffEnabled", "respondToBashCommands", "allowManagedHooksOnly",
			"allowManagedPermissionRulesOnly", "allowManagedMcpServersOnly", "allowAllClaudeAiMcps", "allowClaudeInChromeWithManagedMcp",
			"disableCommandPluginSources", "disableSideloadFlags", "allowNestedModelAccessUnderForceLogin", "forceRemoteSettingsRefresh",
			"skipWebFetchPreflight", "spinnerTipsEnabled", "clawdFileProgressEnabled", "syntaxHighlightingDisabled", "terminalTitleFromRename",
			"alwaysThinkingEnabled", "fastMode", "fastModePerSessionOptIn", "promptSuggestionEnabled", "emojiCompletionEnabled",
			"awaySummaryEnabled", "responseComparisonEnabled", "showClearContextOnPlanAccept", "channelsEnabled", "prefersReducedMotion",
			"doneMeansMerged", "totalTokensReminderAfterUserTurn", "autoMemoryEnabled", "autoDreamEnabled", "showThinkingSummaries",
			"skipDangerousModePermissionPrompt", "skipWorkflowUsageWarning", "verbose", "autoCompactEnabled", "precomputeCompactionEnabled",
			"idleCompaction", "switchModelsOnFlag", "autoContinueAtUsageLimit", "autoScrollEnabled", "wheelScrollAccelerationEnabled",
			"fileCheckpointingEnabled", "showTurnDuration", "showMessageTimestamps", "terminalProgressBarEnabled", "todoFeatureEnabled",
			"remoteControlAtStartup", "isolatePeerMachines", "autoUploadSessions", "inputNeededNotifEnabled", "agentPushNotifEnabled",
			"skipAutoPermissionPrompt", "useAutoModeDuringPlan", "voiceEnabled", "axScreenReader"}},
		{`0.5`, "a whole number of at least 1", []string{"cleanupPeriodDays", "skillListingMaxDescChars", "totalTokensReminderBudget"}},
		{`-1`, "", []string{"desktopSessionCleanupPeriodDays", "skillListingBudgetFraction", "feedbackSurveyRate"}},
		{`"x"`, "", []string{"autoUpdatesChannel", "defaultShell", "workflowSizeGuideline", "parentSettingsBehavior", "managedSourcesBehavior",
			"feedbackDrafts", "tui", "totalTokensReminder", "disableAutoMode", "daemonColdStart", "disableDeepLinkRegistration", "defaultView"}},
		{`{}`, "", []string{"fallbackModel", "availableModels", "enabledMcpjsonServers", "disabledMcpjsonServers", "allowedHttpHookUrls",
			"httpHookAllowedEnvVars", "pluginSuggestionMarketplaces", "companyAnnouncements", "claudeMdExcludes", "forceLoginOrgUUID",
			"sshConfigs", "allowedChannelPlugins", "strictKnownMarketplaces", "blockedMarketplaces", "allowedMarketplaces"}},
		{`"x y"`, "", []string{"sandbox", "modelOverrides", "skillOverrides", "enabledPlugins", "pluginConfigs", "attribution", "statusLine",
			"fileSuggestion", "breakReminder", "quietHours", "worktree", "spinnerVerbs", "remote", "remoteTools", "voice", "autoMode"}},
	} {
		for _, key := range kind.keys {
			seen[key] = true
			err := CheckSettings(mustParse(t, `{"`+key+`": `+kind.bad+`}`))
			if err == nil || err.Path != importer.JoinPath("", key) || (kind.want != "" && err.Want != kind.want) {
				t.Errorf("%s: %s: %v, want %s at %s", key, kind.bad, err, kind.want, key)
			}
		}
	}
	for key := range settingsKeys {
		if !seen[key] {
			t.Errorf("settingsKeys checks %s, which no kind above lists", key)
		}
	}
}

// mustParse is src read as Claude Code reads a settings file.
func mustParse(t *testing.T, src string) *Value {
	t.Helper()
	var warns []importer.Warning
	v, err := parseStrictJSON("s.json", []byte(src), &warns)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestClaudeCodeSkipsIgnoredSettings: a settings file Claude Code ignores
// because a key it does not import has the wrong type, or its hooks are
// malformed, is skipped by the import as Claude Code skips it: its deny
// rule is not in the document, and the warning says why.
func TestClaudeCodeSkipsIgnoredSettings(t *testing.T) {
	// A key the import reads: the file is skipped, as Claude Code skips it.
	root := project(t, map[string]string{"settings.json": `{"permissions": {"deny": "Bash"}}`, "settings.local.json": `{"permissions": {"allow": ["Edit"]}}`})
	r, err := ClaudeCode(root, ClaudeCodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"release":"2.1.328","agents":{},"permissions":{"allow":["Edit"]}}`; string(r.Document) != want {
		t.Errorf("document %s, want %s", r.Document, want)
	}
	// Another key, or the hooks: imported with a warning, its deny rule
	// kept (fail closed: the other keys are checked as the release schema
	// declares them, a sample of each kind observed on the CLI, not each).
	for _, tt := range []struct{ src, warning string }{
		{`{"model": 5, "permissions": {"deny": ["Bash"]}}`, "1:11: warning: model must be a string, got number 5"},
		{`{"permissions": {"deny": ["Bash"]}, "hooks": {"PermissionRequest": "x"}}`, `1:68: warning: hooks.PermissionRequest must be a list of matcher groups, got string "x"`},
	} {
		root := project(t, map[string]string{"settings.json": tt.src, "settings.local.json": `{"permissions": {"allow": ["Edit"]}}`})
		r, err := ClaudeCode(root, ClaudeCodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"release":"2.1.328","agents":{},"permissions":{"allow":["Edit"],"deny":["Bash"]}}`; string(r.Document) != want {
			t.Errorf("%s: document %s, want %s", tt.src, r.Document, want)
		}
		got := warningsOf(r, root)
		found := false
		for _, w := range got {
			found = found || strings.HasPrefix(w, ".claude/settings.json:"+tt.warning+": by its settings schema Claude Code 2.1.328 ignores this whole file")
		}
		if !found {
			t.Errorf("%s: warnings\n got %q\nwant one beginning %q", tt.src, got, tt.warning)
		}
	}
}
