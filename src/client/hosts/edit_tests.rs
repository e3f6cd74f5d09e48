use super::*;
use pretty_assertions::assert_eq;

#[test]
fn host_names_targets_and_data_dirs_are_checked() {
    for (name, ok) in [
        ("box", true),
        ("vm-1.lan", true),
        ("a_b", true),
        ("", false),
        ("a:b", false),
        ("a b", false),
        ("-x", false),
        (".x", false),
        ("é", false),
    ] {
        assert_eq!(check_name(name).is_ok(), ok, "{name:?}");
    }
    for (target, ok) in [
        ("me@10.0.0.5", true),
        ("buildbox", true),
        ("-oProxyCommand=x", false),
        ("a b", false),
        ("", false),
    ] {
        assert_eq!(check_target(target).is_ok(), ok, "{target:?}");
    }
    for (dir, ok) in [("/srv/baton", true), ("~/b", false), ("rel", false)] {
        assert_eq!(check_data_dir(dir).is_ok(), ok, "{dir:?}");
    }
}

#[test]
fn a_host_is_added_and_removed_keeping_the_rest_of_the_file() {
    let before = "# mine\n[providers.claude]\nbin = \"claude\" # here\n";
    let host = HostConfig {
        ssh: "me@box".into(),
        baton: Some("/opt/baton".into()),
        data_dir: None,
    };
    let text = added(before, "box", &host).unwrap();
    assert_eq!(
        text,
        "# mine\n[providers.claude]\nbin = \"claude\" # here\n\n[hosts.box]\nssh = \"me@box\"\nbaton = \"/opt/baton\"\n"
    );
    let config = Config::parse(&text).unwrap();
    assert_eq!(config.hosts["box"], host);
    assert!(added(&text, "box", &host).is_err());
    assert_eq!(removed(&text, "box").unwrap().unwrap(), before);
    assert_eq!(removed(before, "box").unwrap(), None);
}
