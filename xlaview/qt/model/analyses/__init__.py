"""The view model's analyses of what it shows, one job each."""
