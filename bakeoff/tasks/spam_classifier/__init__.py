"""The spam_classifier take-home: a spam filter scored on arrival, with a leaking column (plugin.TASK)."""
