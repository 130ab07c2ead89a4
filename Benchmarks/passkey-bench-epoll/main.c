// passkey-bench-epoll: the floor for the agent's socket round trip (issue 27).
//
// A minimal single-threaded epoll(7) server on a Unix socket, written the way
// a C agent would be: accept, read, and for each newline-terminated line write
// one fixed answer line (as long as the agent's agent.status answer, given as
// argv[2]). It parses nothing and checks no peer: whatever the agent does
// beyond this is the agent's cost. Used only by passkey-bench
// (AgentSocketBenchmarks), never installed.
//
//   passkey-bench-epoll SOCKET-PATH ANSWER-LINE
//
// It runs until a signal ends it; the benchmark connects once the socket answers.
#define _GNU_SOURCE  // accept4
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { MAX_EVENTS = 64, BUFFER = 65536 };

static void fail(const char *what) {
    perror(what);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: passkey-bench-epoll SOCKET-PATH ANSWER-LINE\n");
        return 2;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) {
        fprintf(stderr, "passkey-bench-epoll: socket path too long\n");
        return 2;
    }
    strcpy(address.sun_path, argv[1]);
    size_t answer_length = strlen(argv[2]) + 1;
    char *answer = malloc(answer_length);
    if (!answer) fail("malloc");
    memcpy(answer, argv[2], answer_length - 1);
    answer[answer_length - 1] = '\n';

    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener < 0) fail("socket");
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(listener, 128) < 0) fail("listen");
    int poller = epoll_create1(EPOLL_CLOEXEC);
    if (poller < 0) fail("epoll_create1");
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    if (epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event) < 0) fail("epoll_ctl");

    static char buffer[BUFFER];
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int ready = epoll_wait(poller, events, MAX_EVENTS, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait");
        }
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    struct epoll_event added = {.events = EPOLLIN, .data.fd = client};
                    if (epoll_ctl(poller, EPOLL_CTL_ADD, client, &added) < 0) close(client);
                }
                continue;
            }
            ssize_t n = read(fd, buffer, sizeof buffer);
            if (n <= 0) {
                if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
                close(fd);  // also leaves the epoll set
                continue;
            }
            // One answer per newline; a client of the benchmark keeps one request in flight.
            for (ssize_t k = 0; k < n; k++) {
                if (buffer[k] != '\n') continue;
                if (write(fd, answer, answer_length) != (ssize_t)answer_length) {
                    close(fd);
                    break;
                }
            }
        }
    }
}
