# tty role: nothing beyond the common setup
