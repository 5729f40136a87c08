from django.shortcuts import render


def project_list(request):
    return render(request, "properties/project_list.html", {"projects": []})
