import ArgumentParser

/// `preferences-fleet`: carries fleet policy from etcd into every machine's managed
/// (forced) preferences, reports what each machine applied, and rolls policy out in stages.
@main
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preferences-fleet",
        abstract: "Carry fleet policy from etcd into each machine's managed preferences, and see what every machine applied.",
        discussion: """
            \(FleetHelpText.layout)
            Each machine's follower reports at <prefix>status/<hostname>/<domain> what it \
            applied, on an etcd lease, so a machine that stops goes silent rather than stale.

            `follow` (the default) runs on every machine and writes the managed files under \
            $PREFERENCES_SYSTEM_DIR, else /etc/preferences; the other subcommands are the \
            administrator's.

            Examples:
              preferences-fleet --endpoints http://10.0.0.1:2379,http://10.0.0.2:2379 --group lab
              preferences-fleet template com.example.app > app-policy.plist
              preferences-fleet check com.example.app app-policy.plist
              preferences-fleet rollout com.example.app app-policy.plist --steps 1%,10%,100% \\
                --max-invalid 2% --endpoints http://10.0.0.1:2379
              preferences-fleet status com.example.app --endpoints http://10.0.0.1:2379
            """,
        subcommands: [FollowCommand.self, StatusCommand.self, RolloutCommand.self, TemplateCommand.self, CheckCommand.self],
        defaultSubcommand: FollowCommand.self)
}

/// Help text more than one subcommand gives.
enum FleetHelpText {
    /// The policy keys of the layout, as `--help` lists them.
    static let layout = """
        Keys, under the prefix (default /preferences/), each holding an XML or binary \
        property-list dictionary, one etcd key per domain and scope:
          <prefix>fleet/<domain>               every machine
          <prefix>groups/<group>/<domain>      machines started with --group <group>
          <prefix>hosts/<hostname>/<domain>    the machine with that host name
          <prefix>rollouts/<domain>            a staged rollout (preferences-fleet rollout)
        """
}
