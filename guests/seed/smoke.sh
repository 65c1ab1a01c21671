# smoke role: nothing beyond the common setup
