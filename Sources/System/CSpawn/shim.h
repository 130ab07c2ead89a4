// glibc's posix_spawn extension that closes every descriptor from a number
// up in the child (glibc 2.34; Debian 12 has 2.36). <spawn.h> declares it
// only under _GNU_SOURCE, which Swift's Glibc module is built without.
//
// Why it matters: NIO accepts connections without SOCK_CLOEXEC, so a child
// spawned at that moment by another thread inherits the connection — and
// with it the agent's side of a socket PINs travel over, which then stays
// open after the agent closes it. A child we start gets stdin, stdout and
// stderr (and what we dup2 onto them), nothing else.
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// pipe2(2) with O_CLOEXEC: a pipe for a child that is close-on-exec from the
// start (pipe() then fcntl leaves a moment in which another thread's spawn
// inherits it). <unistd.h> declares it only under _GNU_SOURCE too.
extern int pipe2(int pipefd[2], int flags);

// pidfd_open(2) and pidfd_send_signal(2) (glibc 2.36, <sys/pidfd.h>, which
// Swift's Glibc module does not include): a descriptor for a process we did
// not spawn, so that a later signal reaches that process or nothing — never
// another one given the same pid since (pid_max is often 32768, and a busy
// machine wraps it in minutes).
// (`info` is siginfo_t *, always NULL here: <signal.h> is left out so this
// module does not re-export its names.)
extern int pidfd_open(pid_t pid, unsigned int flags);
extern int pidfd_send_signal(int pidfd, int sig, void *info, unsigned int flags);
