// passkey-fuzz: the fuzz targets' one executable.
//
// Built normally (as `swift build` does) it replays inputs and writes seed
// corpora; built by scripts/fuzz (PASSKEY_FUZZ=1: libFuzzer and
// AddressSanitizer instrumentation, FUZZING defined) it hands the chosen
// target to libFuzzer's driver. docs/FUZZING.md explains both.
import FuzzTargets

#if FUZZING
try FuzzDriver.runLibFuzzer()
#else
await ReplayDriver.main()
#endif
