// Package permissiontools registers the tools that list and revoke the
// "always for this folder" approval rules (Settings → General → Approval
// rules). Both serve trusted callers only (the window, internal callers): a
// cli or agent caller can neither read which folders are allowed nor
// remove a rule.
package permissiontools

import (
	"context"
	"errors"
	"fmt"

	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the tools need.
type Deps struct {
	// Service holds the rules.
	Service *permission.Service
}

// RuleList is the content of permission_list_rules.
type RuleList struct {
	Rules []permission.Rule `json:"rules"`
}

// RevokeRuleInput is the input of permission_revoke_rule.
type RevokeRuleInput struct {
	ID string `json:"id" jsonschema:"the rule to revoke (rule_…), from permission_list_rules" minLength:"1" maxLength:"64"`
}

// RevokeRuleResult is the content of permission_revoke_rule.
type RevokeRuleResult struct {
	Revoked string            `json:"revoked"`
	Rules   []permission.Rule `json:"rules"`
}

// Register adds permission_list_rules and permission_revoke_rule to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{d: d}
	registry.RegisterAll(r, []registry.Def{
		{Name: "permission_list_rules", Description: "List the remembered approval rules (\"always for this folder\"): each a folder and the capability allowed there. Window only.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.list)},
		{Name: "permission_revoke_rule", Description: "Revoke a remembered approval rule: calls from its folder ask again. Window only.",
			Capabilities: protocol.WritesFiles(), Handler: registry.Handle(t.revoke)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

// trustedOnly refuses callers other than the window and internal ones.
func trustedOnly(call *registry.Call, tool string) error {
	if call.Client.Caller.Trusted() {
		return nil
	}
	return &protocol.ToolError{Code: protocol.CodePermissionDenied,
		Message: fmt.Sprintf("%s is only for the meith window: manage approval rules in Settings → General.", tool)}
}

// list is permission_list_rules.
func (t *tools) list(ctx context.Context, call *registry.Call, _ registry.NoArgs) (RuleList, error) {
	if err := trustedOnly(call, "permission_list_rules"); err != nil {
		return RuleList{}, err
	}
	return RuleList{Rules: nonNil(t.d.Service.Rules())}, nil
}

// revoke is permission_revoke_rule.
func (t *tools) revoke(ctx context.Context, call *registry.Call, in RevokeRuleInput) (RevokeRuleResult, error) {
	if err := trustedOnly(call, "permission_revoke_rule"); err != nil {
		return RevokeRuleResult{}, err
	}
	if err := t.d.Service.RevokeRule(in.ID); err != nil {
		if errors.Is(err, permission.ErrUnknownRule) {
			return RevokeRuleResult{}, &protocol.ToolError{Code: protocol.CodeValidation,
				Message: "No such approval rule: it may have been revoked already.", Err: err}
		}
		return RevokeRuleResult{}, err
	}
	return RevokeRuleResult{Revoked: in.ID, Rules: nonNil(t.d.Service.Rules())}, nil
}

func nonNil(r []permission.Rule) []permission.Rule {
	if r == nil {
		return []permission.Rule{}
	}
	return r
}
