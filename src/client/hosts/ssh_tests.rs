use super::*;
use pretty_assertions::assert_eq;

fn strings(args: Vec<OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn ssh_runs_in_batch_mode_through_a_master_connection_with_no_host_key_option() {
    let args = ssh_args(Some(Path::new("/d/ssh")), "me@box", "'baton' server bridge");
    assert_eq!(
        strings(args),
        [
            "-o",
            "BatchMode=yes",
            "-o",
            "ServerAliveInterval=10",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "ControlMaster=auto",
            "-o",
            "ControlPath=/d/ssh/%C",
            "-o",
            "ControlPersist=60",
            "-T",
            "me@box",
            "--",
            "'baton' server bridge",
        ]
    );
    let alone = strings(ssh_args(None, "box", "baton server bridge"));
    assert_eq!(
        alone,
        [
            "-o",
            "BatchMode=yes",
            "-o",
            "ServerAliveInterval=10",
            "-o",
            "ServerAliveCountMax=3",
            "-T",
            "box",
            "--",
            "baton server bridge"
        ]
    );
    for a in alone {
        assert!(!a.contains("StrictHostKeyChecking") && !a.contains("KnownHosts"));
    }
}

#[test]
fn the_remote_command_quotes_each_word_for_the_remote_shell() {
    let rows: [(&str, Option<&str>, &str); 4] = [
        ("baton", None, "baton server bridge"),
        (
            "/opt/my baton/baton",
            Some("/data/b"),
            "'/opt/my baton/baton' server bridge --data-dir /data/b",
        ),
        (
            "/x/baton",
            Some("/d/it's; rm -rf ~"),
            "/x/baton server bridge --data-dir \"/d/it's; rm -rf ~\"",
        ),
        ("$(id)", None, "'$(id)' server bridge"),
    ];
    for (baton, dir, want) in rows {
        let cmd = remote_command(baton, dir).unwrap();
        assert_eq!(cmd, want, "{baton:?} {dir:?}");
        // What the remote shell splits it into is the words, whatever they hold.
        let mut words = vec![baton, "server", "bridge"];
        words.extend(dir.map(|d| ["--data-dir", d]).into_iter().flatten());
        assert_eq!(shlex::split(&cmd).unwrap(), words);
    }
    assert!(remote_command("bad\0nul", None).is_err());
}

#[test]
fn control_sockets_go_under_the_data_dir_only_when_the_path_fits() {
    assert_eq!(
        control_dir(Path::new("/home/me/.local/share/baton")),
        Some(PathBuf::from("/home/me/.local/share/baton/ssh"))
    );
    let long = format!("/{}", "d".repeat(60));
    assert_eq!(control_dir(Path::new(&long)), None);
}

#[test]
fn an_ended_ssh_is_judged_by_its_exit_code() {
    let rows = [
        (Some(127), "sh: 1: /x/baton: not found\n", Ended::NoBaton),
        (Some(126), "sh: /x/baton: Permission denied", Ended::NoBaton),
        (Some(1), "bash: baton: command not found", Ended::NoBaton),
        (
            Some(255),
            "ssh: connect to host 127.0.0.1 port 1: Connection refused\n",
            Ended::Unreachable("ssh: connect to host 127.0.0.1 port 1: Connection refused".into()),
        ),
        (
            Some(255),
            "root@127.0.0.1: Permission denied (publickey).\n\n",
            Ended::Unreachable("root@127.0.0.1: Permission denied (publickey).".into()),
        ),
        (Some(3), "", Ended::Other("exit 3: no message".into())),
        (
            None,
            "x",
            Ended::Other("ssh was killed by a signal: x".into()),
        ),
    ];
    for (code, stderr, want) in rows {
        assert_eq!(judge_end(code, stderr), want, "{code:?} {stderr:?}");
    }
}
