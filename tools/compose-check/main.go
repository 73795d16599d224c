// compose-check validates docker-compose.yml against the Compose specification with the loader
// Docker Compose itself uses (compose-go), since no Docker engine runs where CI does.
//
//	compose-check [-f docker-compose.yml] [-print]   load with schema validation, every profile on;
//	                                                 -print writes the resolved model as JSON
//	compose-check yaml <file>                        any YAML file as JSON (for the tests)
//
// Exit status 1 on any error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v4"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "yaml" {
		if err := yamlToJSON(os.Args[2]); err != nil {
			fail(err)
		}
		return
	}
	file := flag.String("f", "docker-compose.yml", "compose file")
	printModel := flag.Bool("print", false, "print the resolved model as JSON")
	flag.Parse()
	project, err := load(*file)
	if err != nil {
		fail(err)
	}
	if *printModel {
		out, err := project.MarshalJSON()
		if err != nil {
			fail(err)
		}
		os.Stdout.Write(append(out, '\n'))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose-check:", err)
	os.Exit(1)
}

// Variables the file requires with ${NAME:?message} (the secrets) get a dummy value, so a
// missing secret is not an error here; everything else is interpolated as `docker compose` would.
var required = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*):?\?`)

func load(file string) (*types.Project, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, m := range required.FindAllStringSubmatch(string(content), -1) {
		env[m[1]] = "dummy-" + m[1]
	}
	dir := filepath.Dir(abs)
	// No .env: the check is of the committed file alone, not of a developer's local settings.
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: abs, Content: content}},
		Environment: env,
	}
	return loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("gateway", true)
		o.Profiles = []string{"*"} // every profile on: the scale profile is validated too
		o.SkipValidation = false
		o.SkipConsistencyCheck = false
		o.ResolvePaths = true
	})
}

func yamlToJSON(file string) error {
	content, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var doc any
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	os.Stdout.Write(append(out, '\n'))
	return nil
}
