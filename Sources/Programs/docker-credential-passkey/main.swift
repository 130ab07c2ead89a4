import PasskeyCLI

// docker runs `docker-credential-passkey get|store|erase|list|version` for
// `"passkey"` in config.json's credHelpers or credsStore: it becomes `passkey credential docker …`.
CredentialHelperProgram.run(.docker)
