//! One connection to a server, whichever way it goes: this machine's socket, or an ssh channel
//! to another host's bridge (`hosts::ssh`). Every request path reads and writes JSON lines
//! through it unchanged (see ARCHITECTURE.md, "Other hosts").

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

use super::hosts::ssh::SshConn;

pub enum Conn {
    Local(UnixStream),
    Remote(Box<SshConn>),
}

impl Conn {
    /// The host at the other end, for a remote one.
    pub fn host(&self) -> Option<&str> {
        match self {
            Conn::Local(_) => None,
            Conn::Remote(s) => Some(s.host()),
        }
    }
}

impl Read for Conn {
    /// Reads, acting first on any Ctrl-c pressed while it waits (`ctrl_c::wait_readable`).
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Local(s) => {
                super::ctrl_c::wait_readable(s.as_fd());
                s.read(buf)
            }
            Conn::Remote(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Local(s) => s.write(buf),
            Conn::Remote(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Local(s) => s.flush(),
            Conn::Remote(s) => s.flush(),
        }
    }
}
