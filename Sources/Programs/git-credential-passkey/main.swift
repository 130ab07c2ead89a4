import PasskeyCLI

// git runs `git-credential-passkey [ARGS] get|store|erase` for
// `credential.helper = "passkey [ARGS]"`: it becomes `passkey credential git …`.
CredentialHelperProgram.run(.git)
