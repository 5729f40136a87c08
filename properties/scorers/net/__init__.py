"""Network access: every outbound connection a scorer makes goes through here.

`guard` refuses loopback, private, link-local and other non-public addresses at connect time
(after DNS resolution, so a name that resolves inward is refused too); `link_checker` fetches
links through it, following each redirect through the same check.

May import: nothing else of Evalsite. Imported by the property modules that reach the network.
Never imports Django.
"""
