"""Reading artifacts back: the checker (exportguard check) and the manifest readers it uses."""
