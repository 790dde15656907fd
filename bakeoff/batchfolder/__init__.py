"""The one door to a batch folder: where everything lives (`layout`), writing and reading its records
(`records`, through `files`' atomic writes and journal), the upgrade of records of the first schema
(`upgrade`), the whole folder read for analysis and reports (`read`), and the writer's lock (`lock`)."""
