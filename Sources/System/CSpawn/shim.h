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
