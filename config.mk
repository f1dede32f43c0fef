# SPDX-License-Identifier: GPL-2.0-or-later
# Install locations and feature knobs; override on the command line,
# e.g. `make install PREFIX=/usr DESTDIR=/tmp/stage`.
VERSION = 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/rtlab
MANDIR ?= $(PREFIX)/share/man
