package scan

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestClassify: the opening words of each licence name it; a file with a
// vendored part's licence after the library's is named by the first.
func TestClassify(t *testing.T) {
	const bsd = "Copyright (c) 2013 X. All rights reserved.\n\nRedistribution and use in source and binary forms, with or\nwithout modification, are permitted provided that ...\n"
	tests := []struct {
		name, text, want string
	}{
		{"mit", "MIT License\n\nCopyright (c) 2020 X\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software", "MIT"},
		{"apache", "\n                                 Apache License\n                           Version 2.0, January 2004\n", "Apache-2.0"},
		{"apache 1.1", "The Apache Software License, Version 1.1\n", SeeLicenceFile},
		{"bsd-2", bsd + "THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS", "BSD-2-Clause"},
		{"bsd-3", bsd + "    * Neither the name of Google Inc. nor the names of its\ncontributors may be used", "BSD-3-Clause"},
		{"isc", "ISC License\n\nPermission to use, copy, modify, and/or distribute this software for any\npurpose with or without fee is hereby granted", "ISC"},
		{"isc old wording", "Permission to use, copy, modify, and distribute this software for any\npurpose with or without fee is hereby granted", "ISC"},
		{"mpl", "Mozilla Public License Version 2.0\n==================================\n", "MPL-2.0"},
		{"bsd-2 then a vendored isc part", bsd + "\n\nAVL Tree:\nPermission to use, copy, modify, and distribute this software for any purpose with or without fee is hereby granted", "BSD-2-Clause"},
		{"unknown", "This is free and unencumbered software released into the public domain.", SeeLicenceFile},
		{"empty", "", SeeLicenceFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.text); got != tt.want {
				t.Errorf("Classify = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGoLicence: the licence file is found under its usual names; a module
// without one is "see licence file".
func TestGoLicence(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"LICENSE", "MIT"},
		{"LICENCE.md", "MIT"},
		{"COPYING", "MIT"},
		{"README.md", SeeLicenceFile},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tt.file), []byte("Permission is hereby granted, free of charge, to any person obtaining a copy"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := GoLicence(dir); err != nil || got != tt.want {
			t.Errorf("GoLicence with %s = %q, %v; want %q", tt.file, got, err, tt.want)
		}
	}
	if _, err := GoLicence(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Error("GoLicence of a missing directory: want an error")
	}
}

// TestNPMProduction: production packages (nested ones too) with the
// lockfile's licence; dev-only ones left out unless their runtime is
// bundled; a package without a licence field says to see its file.
func TestNPMProduction(t *testing.T) {
	lock := `{"lockfileVersion": 3, "packages": {
	  "": {"name": "app", "dependencies": {"a": "1"}},
	  "node_modules/a": {"version": "1.0.0", "license": "MIT"},
	  "node_modules/@s/b": {"version": "2.0.0", "license": "ISC"},
	  "node_modules/a/node_modules/c": {"version": "3.0.0"},
	  "node_modules/vite": {"version": "7.0.0", "license": "MIT", "dev": true},
	  "node_modules/fsevents": {"version": "2.0.0", "license": "MIT", "devOptional": true},
	  "node_modules/svelte": {"version": "5.0.0", "license": "MIT", "dev": true},
	  "node_modules/linked": {"resolved": "../x", "link": true}
	}}`
	path := filepath.Join(t.TempDir(), "package-lock.json")
	if err := os.WriteFile(path, []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := NPMProduction(path, "svelte")
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{"@s/b", "2.0.0", "ISC"}, {"a", "1.0.0", "MIT"}, {"c", "3.0.0", SeeLicenceFile}, {"svelte", "5.0.0", "MIT"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NPMProduction = %v, want %v", got, want)
	}
	if err := os.WriteFile(path, []byte(`{"lockfileVersion": 1, "dependencies": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NPMProduction(path); err == nil {
		t.Error("NPMProduction of a version 1 lockfile: want an error")
	}
}
