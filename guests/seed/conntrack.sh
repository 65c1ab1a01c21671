# conntrack role: nothing beyond the common setup
